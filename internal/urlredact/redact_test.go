package urlredact

import "testing"

// The password is hidden whatever the form of the URL, one without a
// scheme too (hopper dashboard's start-up line quoted --redis
// user:pw@host:port as given, which url.Parse reads as the scheme "user"),
// or one that does not parse, or a Sentinel URL's password= parameter;
// a URL without one is left as it is.
func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"redis://user:S3CRETPW@localhost:6379/0":  "redis://user:xxxxx@localhost:6379/0",
		"rediss://:S3CRETPW@localhost:6379/0":     "rediss://:xxxxx@localhost:6379/0",
		"user:S3CRETPW@localhost:6379":            "user:xxxxx@localhost:6379",
		"redis://user:S3/CRETPW@localhost:6379/0": "redis://user:xxxxx@localhost:6379/0",
		"redis://user:sec%zzret@h:6379":           "redis://user:xxxxx@h:6379",
		"postgres://u:p@ss@h/db":                  "postgres://u:xxxxx@h/db",
		"redis://user@localhost:6379/0":           "redis://user@localhost:6379/0",
		"localhost:6379":                          "localhost:6379",
		"redis://localhost:notaport/0":            "redis://localhost:notaport/0",
		// A Sentinel URL: the sentinels' password, and the master's.
		"redis://s:S3CRETPW@h:26379?master_name=m&password=S3CRETPW2": "redis://s:xxxxx@h:26379?master_name=m&password=xxxxx",
		"redis://h:26379?master_name=m&password=S3CRETPW2":            "redis://h:26379?master_name=m&password=xxxxx",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}
