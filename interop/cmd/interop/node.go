package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/tests/fixture/tmpnet"
	"github.com/ava-labs/avalanchego/utils/logging"
)

// runNode stops or starts one node of a running network, for the fault tests:
//
//	interop node stop  -network-dir DIR -node NodeID-…   SIGTERM, wait until the process is gone
//	interop node start -network-dir DIR -node NodeID-…   start it again, wait until it is healthy
//
// A node is started again on the API and staking ports it had (recorded when stopped through
// here, or read from the process context a killed node left behind), as a restarted validator
// keeps its address: the network's description, and what peers learnt of it, stay true.
// tmpnet would otherwise give it new dynamic ports.
func runNode(args []string) error {
	if len(args) < 1 || (args[0] != "stop" && args[0] != "start") {
		return errors.New("node: stop|start")
	}
	action := args[0]
	fs := flag.NewFlagSet("node "+action, flag.ContinueOnError)
	dir := fs.String("network-dir", "", "the network's directory (networkDir of the description)")
	nodeText := fs.String("node", "", "the node's NodeID")
	timeout := fs.Duration("timeout", 3*time.Minute, "how long stopping or becoming healthy may take")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *dir == "" || *nodeText == "" {
		return errors.New("node: -network-dir and -node are required")
	}
	nodeID, err := ids.NodeIDFromString(*nodeText)
	if err != nil {
		return fmt.Errorf("node: -node: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	log := logging.NewLogger("", logging.NewWrappedCore(logging.Info, nopCloser{os.Stderr}, logging.Plain.ConsoleEncoder()))
	network, err := tmpnet.ReadNetwork(ctx, log, *dir)
	if err != nil {
		return fmt.Errorf("node: %w", err)
	}
	node, err := network.GetNode(nodeID)
	if err != nil {
		return fmt.Errorf("node: %w", err)
	}
	if err := keepPorts(node); err != nil {
		return fmt.Errorf("node: %w", err)
	}
	started := time.Now()
	switch action {
	case "stop":
		if err := node.Write(); err != nil { // the ports, for the next start
			return fmt.Errorf("node: %w", err)
		}
		if err := node.Stop(ctx); err != nil {
			return fmt.Errorf("node stop: %w", err)
		}
	case "start":
		if err := network.StartNode(ctx, node); err != nil {
			return fmt.Errorf("node start: %w", err)
		}
		if err := node.WaitForHealthy(ctx); err != nil {
			return fmt.Errorf("node start: %w", err)
		}
	}
	return printJSON(map[string]any{
		"nodeId":         node.NodeID.String(),
		"uri":            node.GetAccessibleURI(),
		"stakingAddress": node.StakingAddress.String(),
		"seconds":        time.Since(started).Seconds(),
	})
}

// keepPorts pins the node's HTTP and staking ports to those it runs (or last ran) on.
func keepPorts(node *tmpnet.Node) error {
	if node.URI != "" {
		_, port, err := net.SplitHostPort(strings.TrimPrefix(node.URI, "http://"))
		if err != nil {
			return err
		}
		node.Flags[config.HTTPPortKey] = port
	}
	if node.StakingAddress.IsValid() {
		node.Flags[config.StakingPortKey] = strconv.Itoa(int(node.StakingAddress.Port()))
	}
	if node.Flags[config.HTTPPortKey] == "" || node.Flags[config.StakingPortKey] == "" {
		return fmt.Errorf("%s: its ports are unknown (never started, or stopped other than through `interop node stop`)", node.NodeID)
	}
	return nil
}
