package queue

import (
	"testing"

	"github.com/resilcheck/resilcheck/internal/zootest"
)

// consumers are the directories of the consumers certified, each needing
// node and npm: prepare.sh installs its locked packages.
var consumers = []string{"nats-node"}

// TestQueueConsumers_certify certifies each consumer through its
// target.yaml once per variant of its expectations.yaml (the variant's
// break passed as -break), each check ending as the file says.
func TestQueueConsumers_certify(t *testing.T) {
	zootest.CertifyDirs(t, consumers, "node", "npm")
}
