package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ImageExts are the extensions of the image files a session keeps, one
// per format the agents take: the format told by the image's magic bytes
// (see package imagepaste), never by what the clipboard claimed.
var ImageExts = []string{"png", "jpg", "gif", "webp"}

// imageName is the name of the session's n-th image, image-<n>.<ext>.
func imageName(n int, ext string) string { return fmt.Sprintf("image-%d.%s", n, ext) }

// isImageName reports whether name is one that imageName makes.
func isImageName(name string) bool {
	rest, ok := strings.CutPrefix(name, "image-")
	if !ok {
		return false
	}
	digits, ext, ok := strings.Cut(rest, ".")
	if !ok || !isImageExt(ext) {
		return false
	}
	n, err := strconv.Atoi(digits)
	return err == nil && n >= 1 && imageName(n, ext) == name
}

func isImageExt(ext string) bool {
	for _, e := range ImageExts {
		if ext == e {
			return true
		}
	}
	return false
}

// CommitImage turns t, written by the caller, into the session's next
// image file, image-<n>.<ext> with n counting from 1 (apart from the
// pastes' numbers), mode 0600, and returns n and its path. It does what
// CommitPaste does to keep the file safe: the root and session checked,
// t synced and closed, linked to its name (a name taken behind the
// session's back is skipped, never overwritten), the name checked to
// denote the file written, the directory synced. Images are not reused:
// each paste gets its own file. On error t is kept, and the caller must
// Discard it.
func (s *Session) CommitImage(t *Temp, ext string) (n int, path string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !isImageExt(ext) {
		return 0, "", fmt.Errorf("store: commit image %s: extension %q, want one of %s", t.path, ext, strings.Join(ImageExts, ", "))
	}
	if s.lock == nil {
		return 0, "", fmt.Errorf("store: commit image %s: %w", t.path, errSessionClosed)
	}
	if t.s != s {
		return 0, "", fmt.Errorf("store: commit image %s: temp file of another session", t.path)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return 0, "", fmt.Errorf("store: commit image %s: %w", t.path, errTempDone)
	}
	if err := s.checkLocked(); err != nil {
		return 0, "", err
	}
	p, err := s.linkWith(t, func() (int, string, error) { return s.linkNextImage(t, ext) })
	if err != nil {
		return 0, "", err
	}
	t.done = true
	return p.n, p.path, nil
}

// linkNextImage links the temp file to the first image name from
// s.nextImage that does not exist, and returns its number and path.
func (s *Session) linkNextImage(t *Temp, ext string) (n int, path string, err error) {
	if s.nextImage == 0 {
		s.nextImage = 1
	}
	for range pasteTries * (pasteJumps + 1) {
		if s.nextImage >= maxPasteN {
			break
		}
		n, path = s.nextImage, filepath.Join(s.Dir, imageName(s.nextImage, ext))
		s.nextImage++
		err = os.Link(t.path, path)
		if !errors.Is(err, fs.ErrExist) {
			if err != nil {
				return 0, "", fmt.Errorf("store: commit image: %w", err)
			}
			return n, path, nil
		}
	}
	return 0, "", fmt.Errorf("store: commit image %s: the image names up to %s are taken", t.path, imageName(n, ext))
}
