package suites

// Builtin returns the built-in suites in reporting order, one per contract.
func Builtin() []Suite {
	return []Suite{
		{Name: suiteIK, Checks: Idempotency()},
		rbSuite(AmplificationConfig{}),
		raSuite(RetryAfterConfig{}),
		dlSuite(DeadlineConfig{}),
		rlSuite(RateLimitConfig{}),
	}
}
