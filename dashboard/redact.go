package dashboard

import "strings"

// RedactFunc hides secrets in a decoded value before it leaves the server.
// kind is the job's kind; v is what DecodeArgs returned (map[string]any,
// []any, string, numbers, bool or nil) for the job's args or result, or
// the job's metadata as a map[string]any. It returns the value to show,
// which it may build fresh or change in place. It is called from many
// requests at once and must be safe for concurrent use. If it panics, the
// whole value is shown as "[redacted]".
type RedactFunc func(kind string, v any) any

// redactedValue replaces a hidden value.
const redactedValue = "[redacted]"

// sensitiveKeys are the key fragments DefaultRedact hides, lower case and
// without '_' or '-'.
var sensitiveKeys = []string{"password", "passwd", "secret", "token", "apikey", "authorization"}

// DefaultRedact is the default Config.Redact. It returns a copy of v in
// which the value of every map key that looks secret, at any depth, is
// replaced by the string "[redacted]". A key looks secret when, lower-cased
// and with '_' and '-' removed, it contains password, passwd, secret,
// token, apikey or authorization: "Password", "db_password", "api_key",
// "apiKey", "X-Api-Key", "access_token" and "Authorization" all do. Values
// are hidden whatever their type, maps and lists included. It ignores kind.
func DefaultRedact(kind string, v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if sensitiveKey(k) {
				out[k] = redactedValue
				continue
			}
			out[k] = DefaultRedact(kind, e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = DefaultRedact(kind, e)
		}
		return out
	}
	return v
}

// NoRedact is a Config.Redact that hides nothing: it returns v as it is.
func NoRedact(kind string, v any) any { return v }

// keyNormalizer drops the separators of a key before it is compared.
var keyNormalizer = strings.NewReplacer("_", "", "-", "")

// sensitiveKey reports whether a map key names a secret (see DefaultRedact).
func sensitiveKey(k string) bool {
	k = keyNormalizer.Replace(strings.ToLower(k))
	for _, s := range sensitiveKeys {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}
