package dashboard_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/memstore"
)

// The dashboard mounted under /admin/jobs of an application's own server,
// behind basic auth, with actions turned off.
func ExampleNew() {
	rs := memstore.New(nil) // or redisstore.New(rdb, nil)
	client := hopper.NewClient(rs, nil)
	if _, err := hopper.Enqueue(context.Background(), client, dashtest.ReportArgs{Month: "2026-11"}, nil); err != nil {
		log.Fatal(err)
	}

	dash := dashboard.New(rs, &dashboard.Config{
		Prefix:    "/admin/jobs",
		ReadOnly:  true,
		BasicAuth: &dashboard.BasicAuth{User: "ops", Password: "change me"},
	})
	mux := http.NewServeMux()
	mux.Handle("/admin/jobs/", http.StripPrefix("/admin/jobs", dash))
	// http.ListenAndServe(":8080", mux)

	req := httptest.NewRequest("GET", "/admin/jobs/queues/default/ready", nil)
	req.SetBasicAuth("ops", "change me")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, strings.Contains(rec.Body.String(), "build_report"))
	// Output: 200 true
}
