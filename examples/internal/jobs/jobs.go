// Package jobs holds the job types the example worker and producer share.
// In an application they would live in a package both binaries import.
package jobs

// SendEmail sends one email.
type SendEmail struct {
	To      string `msgpack:"to"`
	Subject string `msgpack:"subject"`
	Body    string `msgpack:"body"`
}

// Kind implements hopper.Args.
func (SendEmail) Kind() string { return "send_email" }

// ChargeCard charges a customer. A declined card is not retried.
type ChargeCard struct {
	Customer string `msgpack:"customer"`
	Cents    int    `msgpack:"cents"`
}

// Kind implements hopper.Args.
func (ChargeCard) Kind() string { return "charge_card" }
