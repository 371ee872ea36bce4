// Package reference runs the reference payments stack: a gateway, a payments
// service and a processor, each on its own loopback listener, wired the way
// resilcheck certifies services. It is the known-good target (no false
// positives), the known-bad one (each defect breaks one contract) and the
// demo; its subpackages are what users read to build these patterns right.
//
//	st, err := reference.Start(ctx, reference.WithDefects(set))
//	defer st.Close(ctx)
//	fmt.Println(st.GatewayURL)
package reference
