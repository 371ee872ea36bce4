package suites

// Builtin returns the built-in suites in reporting order, one per contract.
func Builtin() []Suite {
	return []Suite{
		{Name: suiteIK, Checks: Idempotency()},
		{Name: suiteRB, Checks: Amplification(), Tolerances: rbTolerances},
		{Name: suiteRA, Checks: RetryAfter(), Tolerances: raTolerances, Slack: raSlack},
		{Name: suiteDL, Checks: Deadlines(), Tolerances: dlTolerances, Slack: dlSlack},
		{Name: suiteRL, Checks: RateLimitHeaders(), Tolerances: rlTolerances},
	}
}
