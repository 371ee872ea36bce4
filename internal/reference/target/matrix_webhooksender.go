package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// senderMatrix: the defects the webhook-sender suite catches, each by the
// checks that judge what it breaks. The stack sends webhooks only when the
// spec names the endpoint (webhook_sender.endpoint), which TestMatrix's
// specs do not, so every one is proven by TestWebhookSender_matrix
// (certify/webhooksender_matrix_test.go), which certifies the stack with
// that suite alone.
//   - sender-no-backoff retries at once, which is also no jitter: events
//     failing together are retried at the same instant (WS-08).
//   - sender-no-retry leaves every check that needs a retry with nothing
//     to judge, and WS-05 with a bound it never reaches; with sender-no-backoff
//     too, every event spends its attempts within milliseconds of the
//     outage's start, so none is left to deliver after it (WS-10).
//   - sender-flush-on-recovery also fails WS-08: its sixteen first
//     deliveries fail in a row, so the first retry to succeed releases the
//     other fifteen at once.
var senderMatrix = map[defect.Name]Expectation{
	defect.SenderNewID:           {Must: []string{"WS-01"}, Direct: senderDirect},
	defect.SenderUnsignedRetries: {Must: []string{"WS-02"}, Direct: senderDirect},
	defect.SenderNoRetry: {Must: []string{"WS-03", "WS-03b", "WS-03c", "WS-09"}, Direct: senderDirect,
		Vacuous: []string{"WS-01", "WS-02", "WS-04", "WS-05", "WS-06", "WS-06b", "WS-08", "WS-10"}},
	defect.SenderNoBackoff:        {Must: []string{"WS-04", "WS-08"}, Direct: senderDirect, Vacuous: []string{"WS-10"}},
	defect.SenderNoJitter:         {Must: []string{"WS-08"}, Direct: senderDirect},
	defect.SenderUnbounded:        {Must: []string{"WS-05"}, Direct: senderDirect},
	defect.SenderNoTimeout:        {Must: []string{"WS-03c"}, Direct: senderDirect},
	defect.SenderIgnoreRetryAfter: {Must: []string{"WS-06", "WS-06b"}, Direct: senderDirect},
	defect.SenderRetryGone:        {Must: []string{"WS-07"}, Direct: senderDirect},
	defect.SenderFollowsRedirects: {Must: []string{"WS-09"}, Direct: senderDirect},
	defect.SenderFlushOnRecovery:  {Must: []string{"WS-08", "WS-10"}, Direct: senderDirect},
}

// senderDirect names the test that certifies the webhook-sender defects.
const senderDirect = "TestWebhookSender_matrix"
