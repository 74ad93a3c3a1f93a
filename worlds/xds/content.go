package xds

var contentNames = map[Content]string{Full: "full", NoEndpoints: "no-endpoints", Nothing: "nothing"}

// String names the content ("full", "no-endpoints", "nothing").
func (c Content) String() string { return nameOf(contentNames, c) }

// MarshalText writes the name, so a Status travels as JSON.
func (c Content) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText parses the name.
func (c *Content) UnmarshalText(b []byte) error {
	v, err := parseName(contentNames, string(b), "snapshot content")
	if err == nil {
		*c = v
	}
	return err
}
