// Command subnet-evm is the subnet-evm VM plugin (github.com/ava-labs/avalanchego/graft/subnet-evm,
// the VM of graft/subnet-evm/plugin) started without one step of its runner: that runner exits
// at start when the file-descriptor hard limit is below 32768, and containers (this project's
// machines and CI among them) cap it at 20000 without the privilege to raise it. Everything
// else is the plugin's own code: the libevm extras it registers, then rpcchainvm.Serve of its VM.
package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/ava-labs/avalanchego/graft/subnet-evm/plugin/evm"
	"github.com/ava-labs/avalanchego/version"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm"
)

func main() {
	evm.RegisterAllLibEVMExtras()
	if len(os.Args) > 1 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		fmt.Printf("Subnet-EVM/%s [rpcchainvm=%d]\n", version.Current, version.RPCChainVMProtocol)
		return
	}
	// What the runner does, as far as the hard limit allows: the soft limit up to 32768.
	var limit syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &limit) == nil && limit.Cur < limit.Max {
		limit.Cur = min(limit.Max, 32768)
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &limit)
	}
	if err := rpcchainvm.Serve(context.Background(), &evm.VM{}); err != nil {
		fmt.Printf("failed to serve VM: %s", err)
		os.Exit(1)
	}
}
