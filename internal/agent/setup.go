package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// A File is one file pbwrap setup changes for an agent: its hook's, or a
// record that makes the agent start without asking about what pbwrap
// needs (the hook's trust, the root's).
type File struct {
	// What is the change, for messages: "the hook", "the root's trust".
	What string
	// Help says, for pbwrap setup --help, which file it is and why setup
	// changes it.
	Help string
	// Path returns the file's name.
	Path func(Env) (string, error)
	// Root: the change needs the root (Run.Root).
	Root bool
	// Install returns text (nil: no file yet) with pbwrap's part in it,
	// and Remove without it (nil: the file is to be removed); both return
	// text itself when there is nothing to change. An error says why the
	// file cannot be changed.
	Install, Remove func(text []byte, r *Run) ([]byte, error)
}

// A Run is one run of pbwrap setup: what the changes are made with, and
// the texts of the files planned before, as they were and as they will
// be, by the names their Path functions return.
type Run struct {
	Env Env
	// Prog is the program the hook runs (Program); Root is pbwrap's
	// root, absolute, when a file needs it.
	Prog, Root    string
	before, after map[string][]byte
}

// Files are the files pbwrap setup changes for the agent, in the order it
// writes them: the hook's first, then those that record trust. None for
// an agent without a hook.
func (a *Agent) Files() []File {
	if a.Hook == nil {
		return nil
	}
	h := a.Hook
	hook := File{
		What: "the hook", Path: h.File,
		Install: func(text []byte, r *Run) ([]byte, error) {
			out, _, err := h.install(text, r.Prog)
			return out, err
		},
		Remove: func(text []byte, r *Run) ([]byte, error) { return h.uninstall(text) },
	}
	return append([]File{hook}, a.Trust...)
}

// NeedsRoot reports whether setup's change for the agent needs the root.
func (a *Agent) NeedsRoot() bool {
	for _, f := range a.Files() {
		if f.Root {
			return true
		}
	}
	return false
}

// A Change is a file setup read and what it will write there.
type Change struct {
	// What is the change, as File.What says it.
	What string
	// Name is the file as the agent names it; Path the file it stands
	// for (Name, or the file a symbolic link Name points to).
	Name, Path string
	// Old is the file's text, nil when there is none; New what setup
	// leaves there, nil for no file.
	Old, New []byte
	// Mode is the file's permissions, kept.
	Mode fs.FileMode
	// Force: Write writes a read-only file too (keeping its mode).
	Force bool
}

// Changed reports whether the change changes anything.
func (c *Change) Changed() bool {
	return !bytes.Equal(c.Old, c.New) || (c.Old == nil) != (c.New == nil)
}

// Plan reads the agent's files and works out setup's change to each (the
// inverse with remove). It writes nothing.
func (a *Agent) Plan(r *Run, remove bool) ([]*Change, error) {
	r.before, r.after = map[string][]byte{}, map[string][]byte{}
	var plan []*Change
	for _, f := range a.Files() {
		name, err := f.Path(r.Env)
		if err != nil {
			return nil, fmt.Errorf("find %s's file for %s: %w", a.Name, f.What, err)
		}
		path, err := resolve(name)
		if err != nil {
			return nil, err
		}
		old, mode, err := readSettings(path)
		if err != nil {
			return nil, err
		}
		change := f.Install
		if remove {
			change = f.Remove
		}
		updated, err := change(old, r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; left as it is", path, err)
		}
		r.before[name], r.after[name] = old, updated
		plan = append(plan, &Change{What: f.What, Name: name, Path: path, Old: old, New: updated, Mode: mode})
	}
	return plan, nil
}

// Write makes the change: it keeps what the file held as a backup beside
// it, whose name it returns ("" when there was no file), and then
// replaces the file at once, or removes it when nothing is to be left.
// The file keeps its mode and its owner. It leaves the file as it is,
// with an error that says why, when
//
//   - it changed since Plan read it: the agent may have written it
//     meanwhile, and the change would undo that. Where the system swaps
//     two names in one step (Linux, macOS), the new file takes the old
//     one's place that way and the old one is compared after the swap,
//     and swapped back if it changed, so no change made before the swap
//     is lost; elsewhere (FreeBSD) it is compared just before the rename;
//   - it has more than one hard link: a new file in its place would split
//     it from its other names, which would keep the old text;
//   - it is read-only, unless Force;
//   - another user owns it, or owns the directory a new file goes in,
//     root included: root writes only root's files (pbwrap setup under
//     sudo acts as the user who ran sudo, with that user's rights alone:
//     cmd/pbwrap's asSudoUser).
func (c *Change) Write() (backup string, err error) {
	owner, err := c.owner()
	if err != nil {
		return "", fmt.Errorf("%s: %w; not written", c.Path, err)
	}
	if c.Old != nil {
		if backup, err = writeBackup(c.Path, c.Old, c.Mode, owner); err != nil {
			return "", fmt.Errorf("back up %s: %w; left as it is", c.Path, err)
		}
	} else if err := mkdirOwned(filepath.Dir(c.Path), owner); err != nil {
		return "", err
	}
	unchanged := func() error {
		now, _, err := readSettings(c.Path)
		if err != nil {
			return err
		}
		if !bytes.Equal(now, c.Old) || (now == nil) != (c.Old == nil) {
			return fmt.Errorf("%s %w", c.Path, errChanged)
		}
		return nil
	}
	if c.New == nil {
		if err := unchanged(); err != nil {
			return backup, err
		}
		if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return backup, fmt.Errorf("remove %s: %w", c.Path, err)
		}
		return backup, nil
	}
	// A reader (the agent starting) finds the old file or the new one,
	// never a mix.
	err = fsutil.WriteFileAtomic(c.Path, c.New, fsutil.WriteOptions{
		Perm:         c.Mode,
		TempPattern:  "." + filepath.Base(c.Path) + ".pbwrap-*",
		Durable:      true,
		Owner:        owner,
		BeforeRename: unchanged,
		Displaced: func(name string) error {
			// The file as it was when it left path: a change made at
			// any time before the swap is there, and swapped back.
			now, _, err := fsutil.ReadRegularNoFollow(name, MaxSettingsBytes)
			if err != nil {
				return err
			}
			if !bytes.Equal(now, c.Old) {
				return fmt.Errorf("%s %w", c.Path, errChanged)
			}
			return nil
		},
	})
	switch {
	case errors.Is(err, errChanged):
		return backup, err
	case err != nil:
		return backup, fmt.Errorf("write %s: %w", c.Path, err)
	}
	return backup, nil
}

// errChanged: the file changed between Plan and Write.
var errChanged = errors.New("changed while pbwrap setup ran: not written; run it again")

// owner checks the file, or for a new one the nearest directory above it,
// before Write changes anything, and returns the owner its new file must
// be given (nil: the one who runs pbwrap).
func (c *Change) owner() (*fsutil.FileID, error) {
	fi, err := os.Lstat(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		fi, err = os.Stat(fsutil.NearestExisting(filepath.Dir(c.Path)))
	}
	if err != nil {
		return nil, err
	}
	id, ok := fsutil.Identity(fi)
	if !ok {
		return nil, nil
	}
	isFile, euid := fi.Mode().IsRegular(), os.Geteuid()
	switch {
	case isFile && id.Links > 1:
		return nil, fmt.Errorf("it has %d hard links, and a new file in its place would split it from the others, "+
			"which would keep the old text (make it a file of its own, or edit it by hand)", id.Links)
	case isFile && fi.Mode().Perm()&0o200 == 0 && !c.Force:
		return nil, fmt.Errorf("it is read-only (mode %#o): --force writes it anyway, keeping its mode", fi.Mode().Perm())
	case id.UID == euid:
		return nil, nil
	case isFile:
		return nil, fmt.Errorf("it is owned by uid %d, and you are uid %d: run setup as that user", id.UID, euid)
	}
	return nil, fmt.Errorf("%s is owned by uid %d, and you are uid %d: run setup as that user",
		fi.Name(), id.UID, euid)
}

// mkdirOwned makes dir and its missing parents, mode 0700, given to owner
// when not nil.
func mkdirOwned(dir string, owner *fsutil.FileID) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirOwned(parent, owner); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if owner != nil {
		return os.Lchown(dir, owner.UID, owner.GID)
	}
	return nil
}

// resolve returns the file that name stands for: name, or, when name is a
// symbolic link (settings kept with one's dotfiles), the file it points
// to, so that the link stays.
func resolve(name string) (string, error) {
	fi, err := os.Lstat(name)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return name, nil
	}
	path, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", fmt.Errorf("%s is a symbolic link that leads nowhere: %w", name, err)
	}
	return path, nil
}

// MaxSettingsBytes caps what is read of an agent's settings file: the
// agents' own are a few kilobytes; a file larger than this is not one, and
// reading it whole (a link to /dev/zero has no end) would exhaust memory.
// pbwrap help setup gives the figure.
const MaxSettingsBytes = 4 << 20

// readSettings returns the content of the regular file at path and its
// permissions; nil and 0600, the mode a new settings file gets, when it
// does not exist. Anything else there (a named pipe, a device, a
// directory), or a file larger than MaxSettingsBytes, is an error, found
// without waiting or reading it: the file is opened without blocking and
// checked on the descriptor that is read.
func readSettings(path string) ([]byte, fs.FileMode, error) {
	text, mode, err := fsutil.ReadRegular(path, MaxSettingsBytes)
	var notRegular *fsutil.NotRegularError
	var tooLarge *fsutil.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0o600, nil
	case errors.As(err, &notRegular):
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	case errors.As(err, &tooLarge):
		return nil, 0, fmt.Errorf("%s is larger than %d MiB: not a settings file", path, MaxSettingsBytes>>20)
	}
	return text, mode, err
}

// writeBackup copies text, the file at path, to a new file beside it,
// path.pbwrap-backup-DATE-TIME (a number added when that exists), with
// its mode (and owner, when not nil), and returns its name.
func writeBackup(path string, text []byte, mode fs.FileMode, owner *fsutil.FileID) (string, error) {
	base := path + ".pbwrap-backup-" + time.Now().Format("20060102-150405")
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && n < 100 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(text)
		if err == nil && owner != nil {
			err = f.Chown(owner.UID, owner.GID)
		}
		if err == nil {
			err = f.Chmod(mode)
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(name) // Best effort.
			return "", err
		}
		return name, nil
	}
}
