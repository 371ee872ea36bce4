package webhooks

import (
	"testing"

	"github.com/resilcheck/resilcheck/internal/zootest"
)

// receivers and senders are the directories certified, each needing node
// and npm: prepare.sh installs its locked packages.
var (
	receivers = []string{"standardwebhooks-node"}
	senders   = []string{"sender-node"}
)

// TestStandardWebhooks_certify certifies each receiver and sender through its
// target.yaml once per variant of its expectations.yaml (the variant's
// break passed as -break), each check ending as the file says. A sender's
// variants run one at a time: WS-08 tells jitter from lockstep against how
// far apart the sender's first deliveries arrived, and three Node senders
// sharing 2 cores spread those past what it can judge (its no-randomize
// variant was left unjudged in three runs in a row).
func TestStandardWebhooks_certify(t *testing.T) {
	zootest.CertifyDirs(t, receivers, "node", "npm")
	zootest.CertifyDirsWith(t, senders, zootest.Options{Runtimes: []string{"node", "npm"}, AtOnce: 1})
}
