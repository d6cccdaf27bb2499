// Command interop runs warpgate's interop harness against real avalanchego nodes.
//
//	interop network   start a local network with an L1, print one JSON line, stay up until a signal
//	interop verify    check a signed Warp message with avalanchego's own verification code
//	interop new-validator-key  a NodeID and a BLS key with its proof of possession
//	interop issue register|weight  a RegisterL1ValidatorTx / SetL1ValidatorWeightTx carrying a signed message
//	interop node stop|start  stop or start again one node of a running network (fault tests)
//	interop validator-only-l1  add a second L1 whose subnet is validatorOnly, until a signal
//	interop reap      (internal) stop the nodes of a network whose owner process died
//
// Everything it does goes through avalanchego's own packages (tmpnet, the P-Chain wallet,
// vms/platformvm/warp), so what it accepts is what avalanchego accepts.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: interop network|verify|new-validator-key|issue|node|validator-only-l1|reap [flags]")
	}
	var err error
	switch os.Args[1] {
	case "network":
		err = runNetwork(os.Args[2:])
	case "verify":
		err = runVerify(os.Args[2:])
	case "new-validator-key":
		err = runNewValidatorKey(os.Args[2:])
	case "issue":
		err = runIssue(os.Args[2:])
	case "node":
		err = runNode(os.Args[2:])
	case "validator-only-l1":
		err = runValidatorOnlyL1(os.Args[2:])
	case "reap":
		err = runReap(os.Args[2:])
	default:
		fail("unknown command " + os.Args[1] + " (network|verify|reap)")
	}
	if err != nil {
		fail(err.Error())
	}
}

// fail prints one line saying why and exits non-zero: callers (npm scripts, tests) show it as is.
func fail(msg string) {
	fmt.Fprintln(os.Stderr, "interop: "+msg)
	os.Exit(1)
}
