package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/tests/fixture/tmpnet"
	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

const (
	// validatorOnlyEVMChainID tells the second L1's EVM apart from the first's (99999).
	validatorOnlyEVMChainID = 99998
	// validatorOnlyWeight: one validator whose weight reaches consensus's sample size (K = 20).
	validatorOnlyWeight = 20
)

// runValidatorOnlyL1 adds a second L1 to a running network, for the tests of what warpgate
// meets on a subnet that admits only some NodeIDs: one subnet-evm chain, converted to an L1 of
// one fresh node whose subnet configuration is validatorOnly with the given allowedNodes
// (subnets/subnet.go: a request for the subnet's chains from any other NodeID, a non-validator,
// is dropped without an answer by the chain router). It prints one JSON line once the node is
// healthy, its EVM answers and the P-Chain's proposed height has the L1's set, and stays up
// until SIGTERM or SIGINT (or its parent dies); then it stops the node and removes its
// directory, leaving the network as it found it (the L1 stays on the P-Chain, with a validator
// nobody runs).
//
//	interop validator-only-l1 -network-dir DIR -allowed-nodes NodeID-…[,NodeID-…]
func runValidatorOnlyL1(args []string) error {
	fs := flag.NewFlagSet("validator-only-l1", flag.ContinueOnError)
	dir := fs.String("network-dir", "", "the running network's directory")
	allowed := fs.String("allowed-nodes", "", "NodeIDs besides the L1's validators that may send requests to its chain, comma-separated")
	timeout := fs.Duration("start-timeout", 8*time.Minute, "how long creating and starting the L1 may take")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("validator-only-l1: -network-dir is required")
	}
	allowedNodes := []string{}
	for _, text := range strings.Split(*allowed, ",") {
		if text = strings.TrimSpace(text); text == "" {
			continue
		}
		if _, err := ids.NodeIDFromString(text); err != nil {
			return fmt.Errorf("validator-only-l1: -allowed-nodes: %w", err)
		}
		allowedNodes = append(allowedNodes, text)
	}

	log := logging.NewLogger("", logging.NewWrappedCore(logging.Info, nopCloser{os.Stderr}, logging.Plain.ConsoleEncoder()))
	ctx, stopSignals := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stopSignals()
	ctx, orphaned := context.WithCancel(ctx)
	defer orphaned()
	go exitWithParent(orphaned)

	network, err := tmpnet.ReadNetwork(ctx, log, *dir)
	if err != nil {
		return fmt.Errorf("validator-only-l1: %w", err)
	}
	startCtx, cancelStart := context.WithTimeout(ctx, *timeout)
	node, desc, err := startValidatorOnlyL1(startCtx, log, network, allowedNodes)
	cancelStart()
	stop := func() {
		if node == nil {
			return
		}
		stopCtx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := node.Stop(stopCtx); err != nil {
			fmt.Fprintln(os.Stderr, "interop: stopping the validatorOnly L1's node:", err)
		}
		_ = os.RemoveAll(node.DataDir)
	}
	if err != nil {
		stop()
		return fmt.Errorf("validator-only-l1: %w", err)
	}
	if err := printJSON(desc); err != nil {
		stop()
		return err
	}
	<-ctx.Done()
	stop()
	return nil
}

type validatorOnlyL1JSON struct {
	SubnetID     string     `json:"subnetId"`
	BlockchainID string     `json:"blockchainId"`
	EVMChainID   uint64     `json:"evmChainId"`
	RPCURL       string     `json:"rpcUrl"`
	AllowedNodes []string   `json:"allowedNodes"`
	Validators   []nodeJSON `json:"validators"`
	Weight       uint64     `json:"weight"`
}

func startValidatorOnlyL1(ctx context.Context, log logging.Logger, network *tmpnet.Network, allowedNodes []string) (*tmpnet.Node, *validatorOnlyL1JSON, error) {
	keys := network.PreFundedKeys
	if len(keys) < 20 {
		return nil, nil, errors.New("not enough pre-funded keys")
	}
	// Keys from the end of the list: the main L1 uses the first ones.
	owner, funded := keys[len(keys)-1], keys[len(keys)-2]
	genesis, err := subnetEVMGenesis(nil)
	if err != nil {
		return nil, nil, err
	}
	if genesis, err = withEVMChainID(genesis, validatorOnlyEVMChainID, funded.EthAddress().Hex()); err != nil {
		return nil, nil, err
	}
	subnetConfig := tmpnet.ConfigMap{"validatorOnly": true, "allowedNodes": allowedNodes}
	subnet := &tmpnet.Subnet{
		Name:      "warpgate-l1-validator-only",
		OwningKey: owner,
		Chains:    []*tmpnet.Chain{{VMID: subnetEVMID, Genesis: genesis}},
	}
	apiURI := network.Nodes[0].GetAccessibleURI()
	if apiURI == "" {
		return nil, nil, errors.New("the network's first node is not running")
	}
	if err := subnet.Create(ctx, apiURI); err != nil {
		return nil, nil, err
	}
	if err := subnet.CreateChains(ctx, log, apiURI); err != nil {
		return nil, nil, err
	}
	chainID := subnet.Chains[0].ChainID

	node := tmpnet.NewNodesOrPanic(1)[0]
	node.Flags[config.TrackSubnetsKey] = subnet.SubnetID.String()
	// Given as the node's own flag, so the network's files (read by every other node's next
	// start) stay as they were.
	content, err := json.Marshal(map[string]tmpnet.ConfigMap{subnet.SubnetID.String(): subnetConfig})
	if err != nil {
		return nil, nil, err
	}
	node.Flags[config.SubnetConfigContentKey] = base64.StdEncoding.EncodeToString(content)
	if err := network.EnsureNodeConfig(node); err != nil {
		return nil, nil, err
	}
	pop, err := node.GetProofOfPossession()
	if err != nil {
		return nil, nil, err
	}
	wallet, err := subnet.GetWallet(ctx, apiURI)
	if err != nil {
		return nil, nil, err
	}
	_, err = wallet.P().IssueConvertSubnetToL1Tx(
		subnet.SubnetID, chainID, funded.EthAddress().Bytes(),
		[]*txs.ConvertSubnetToL1Validator{{
			NodeID:                node.NodeID.Bytes(),
			Weight:                validatorOnlyWeight,
			Balance:               l1ValidatorBalance,
			Signer:                *pop,
			RemainingBalanceOwner: message.PChainOwner{},
			DeactivationOwner:     message.PChainOwner{},
		}},
		common.WithContext(ctx),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("ConvertSubnetToL1Tx: %w", err)
	}
	if err := network.StartNode(ctx, node); err != nil {
		return node, nil, err
	}
	if err := node.WaitForHealthy(ctx); err != nil {
		return node, nil, err
	}
	rpc := rpcURL(node.GetAccessibleURI(), chainID.String())
	if err := waitForEVM(ctx, rpc); err != nil {
		return node, nil, err
	}
	if err := waitForProposedSet(ctx, apiURI, subnet.SubnetID, 1); err != nil {
		return node, nil, err
	}
	log.Info("validatorOnly L1 healthy")
	return node, &validatorOnlyL1JSON{
		SubnetID:     subnet.SubnetID.String(),
		BlockchainID: chainID.String(),
		EVMChainID:   validatorOnlyEVMChainID,
		RPCURL:       rpc,
		AllowedNodes: allowedNodes,
		Validators: []nodeJSON{{
			NodeID:         node.NodeID.String(),
			URI:            node.GetAccessibleURI(),
			StakingAddress: node.StakingAddress.String(),
		}},
		Weight: validatorOnlyWeight,
	}, nil
}

// withEVMChainID sets the genesis's EVM chain ID and funds one address.
func withEVMChainID(genesis []byte, chainID uint64, fundedAddress string) ([]byte, error) {
	var g map[string]any
	if err := json.Unmarshal(genesis, &g); err != nil {
		return nil, err
	}
	g["config"].(map[string]any)["chainId"] = chainID
	g["alloc"] = map[string]any{fundedAddress: map[string]string{"balance": "0x52b7d2dcc80cd2e4000000"}}
	return json.Marshal(g)
}
