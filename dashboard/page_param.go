package dashboard

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
)

// pageParam reads the page number q gives under key, for a list whose
// pages count from 1: 1 when absent, not a number or below 2; at most
// max, which a number too large for an int is too (see boundedParam).
func pageParam(q url.Values, key string, max int) int {
	if p, ok := boundedParam(q, key, max); ok && p > 1 {
		return p
	}
	return 1
}

// boundedParam reads the whole number q gives under key, at most max;
// false when absent, not a number or negative. A number too large for an
// int is max, past the end of a list like any other: it read as absent,
// so a page or position past the end showed the start of the list.
func boundedParam(q url.Values, key string, max int) (int, bool) {
	v := q.Get(key)
	n, err := strconv.Atoi(v)
	switch {
	case err == nil && n >= 0:
		return min(n, max), true
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-"):
		return max, true
	}
	return 0, false
}
