package faults

import (
	"fmt"
	"net/http"
)

// loseHow is the shared "how is the answer lost" attribute pair of
// drop-response and blackhole: close, reset, or a status (default 504).
func checkLoseMode(mode string, status int) error {
	switch mode {
	case "", "close", "reset", "status":
	default:
		return fmt.Errorf("mode %q: want close, reset or status", mode)
	}
	if status != 0 && (status < 200 || status > 599) {
		return fmt.Errorf("status %d not in [200, 599]", status)
	}
	return nil
}

func loseAnswer(ex *Exchange, mode string, status int) error {
	switch mode {
	case "status":
		if status == 0 {
			status = http.StatusGatewayTimeout
		}
		return ex.Respond(status, nil, nil)
	case "reset":
		return ex.Lose(LoseReset)
	}
	return ex.Lose(LoseClose)
}
