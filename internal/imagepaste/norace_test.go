//go:build !race

package imagepaste

const raceEnabled = false
