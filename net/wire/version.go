package wire

import "fmt"

// VersionError reports a message of another protocol version. It wraps ErrVersion, so
// errors.Is(err, ErrVersion) holds; errors.As gives the version the peer speaks.
type VersionError struct {
	// Got is the version byte of the message; Version is this package's.
	Got uint8
}

// Error names both versions.
func (e *VersionError) Error() string {
	return fmt.Sprintf("wire: the peer speaks protocol version %d, this program version %d", e.Got, Version)
}

// Unwrap returns ErrVersion.
func (e *VersionError) Unwrap() error { return ErrVersion }
