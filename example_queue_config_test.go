package hopper_test

import (
	"context"
	"fmt"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// Change one setting of a live queue and keep the others, even when
// another operator changes another setting at the same moment.
func ExampleInspector_UpdateQueueConfig() {
	ctx := context.Background()
	ins := hopper.NewInspector(memstore.New(nil))
	_ = ins.SetQueueConfig(ctx, "tenants", hopper.QueueConfig{RateLimit: 100})
	err := ins.UpdateQueueConfig(ctx, "tenants", func(c *hopper.QueueConfig) error {
		c.GroupMaxRunning = 2
		return nil
	})
	st, _ := ins.GetQueueStats(ctx, "tenants")
	fmt.Println(st.Config.RateLimit, st.Config.GroupMaxRunning, err)
	// Output: 100 2 <nil>
}
