package webhooks

import (
	"testing"

	"github.com/resilcheck/resilcheck/internal/zootest"
)

// receivers are the directories of the receivers and senders certified,
// each needing node and npm: prepare.sh installs its locked packages.
var receivers = []string{"standardwebhooks-node", "sender-node"}

// TestStandardWebhooks_certify certifies each receiver and sender through its
// target.yaml once per variant of its expectations.yaml (the variant's
// break passed as -break), each check ending as the file says.
func TestStandardWebhooks_certify(t *testing.T) {
	zootest.CertifyDirs(t, receivers, "node", "npm")
}
