package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// webhooksMatrix: the defects the webhooks suite catches, each by the
// checks that judge what it breaks. The receiver's defects break nothing
// else (it shares no code with the payments route), so only two are
// certified whole by TestMatrix; the others are proven by TestWebhooks_matrix
// (certify/webhooks_matrix_test.go), which certifies the stack with the
// webhooks suite alone in about a second each.
//   - webhook-raw-secret refuses every genuine delivery: WH-07 fails, and
//     the checks that need an accepted delivery to judge anything are left
//     with nothing to judge.
var webhooksMatrix = map[defect.Name]Expectation{
	defect.WebhookNoDedupe:     {Must: []string{"WH-01", "WH-02", "WH-03"}},
	defect.WebhookAnySignature: {Must: []string{"WH-04"}},
	defect.WebhookUnsigned:     {Must: []string{"WH-05"}, Direct: webhooksDirect},
	defect.WebhookNoTolerance:  {Must: []string{"WH-06", "WH-06b"}, Direct: webhooksDirect},
	defect.WebhookRawSecret: {Must: []string{"WH-07"}, Direct: webhooksDirect,
		Vacuous: []string{"WH-01", "WH-02", "WH-03", "WH-04", "WH-05", "WH-06", "WH-06b", "WH-08", "WH-09"}},
	defect.WebhookAnswerFirst:   {Must: []string{"WH-08"}, Direct: webhooksDirect},
	defect.WebhookLastWriteWins: {Must: []string{"WH-09"}, Direct: webhooksDirect},
}

// webhooksDirect names the test that certifies the webhooks defects TestMatrix leaves out.
const webhooksDirect = "TestWebhooks_matrix"
