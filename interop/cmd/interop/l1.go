package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/tests/fixture/tmpnet"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

// subnetEVMID is the VM ID the subnet-evm plugin is installed under.
var subnetEVMID = ids.FromStringOrPanic("srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy")

const (
	l1EVMChainID = 99999
	// fundedKeyCount keys are funded on both EVM chains, so a test and a relayer never share a
	// nonce sequence.
	fundedKeyCount = 4
	// l1ValidatorBalance pays each L1 validator's continuous fee for weeks at the minimum price.
	l1ValidatorBalance = units.Avax
)

// l1Weights of the initial L1 validators (none of them a Primary Network validator): stopping a
// light one leaves 5/6 = 83% of the weight, stopping the heavy one leaves 33%. The total must
// reach consensus's sample size (K = 20 by default): validators are sampled by weight unit
// without replacement, and a chain whose set weighs less never finalises a block.
var l1Weights = []uint64{40, 10, 10}

type l1Network struct {
	subnet         *tmpnet.Subnet
	chainID        ids.ID
	validators     []*tmpnet.Node
	conversionTxID ids.ID
	manager        *secp256k1.PrivateKey
	// deployer creates the Teleporter contracts, with its first transactions on each chain.
	deployer        *secp256k1.PrivateKey
	funded          []*secp256k1.PrivateKey
	pChainFundedKey *secp256k1.PrivateKey
}

// startL1 creates a subnet with a subnet-evm chain, converts it to an L1 with a real
// ConvertSubnetToL1Tx whose validators are fresh nodes outside the Primary Network, and starts
// those nodes.
func startL1(ctx context.Context, log logging.Logger, network *tmpnet.Network) (*l1Network, error) {
	keys := network.PreFundedKeys
	if len(keys) < fundedKeyCount+4 {
		return nil, errors.New("not enough pre-funded keys")
	}
	l1 := &l1Network{
		funded:          keys[:fundedKeyCount],
		manager:         keys[fundedKeyCount],
		pChainFundedKey: keys[fundedKeyCount+1],
		deployer:        keys[fundedKeyCount+3],
	}
	genesis, err := subnetEVMGenesis(append([]*secp256k1.PrivateKey{l1.manager, l1.deployer}, l1.funded...))
	if err != nil {
		return nil, err
	}
	chainConfig, err := json.Marshal(map[string]any{"warp-api-enabled": true, "log-level": "info"})
	if err != nil {
		return nil, err
	}
	l1.subnet = &tmpnet.Subnet{
		Name:      "warpgate-l1",
		OwningKey: keys[fundedKeyCount+2],
		Chains:    []*tmpnet.Chain{{VMID: subnetEVMID, Genesis: genesis, Config: string(chainConfig)}},
	}
	apiURI := network.Nodes[0].GetAccessibleURI()
	if err := l1.subnet.Create(ctx, apiURI); err != nil {
		return nil, err
	}
	if err := l1.subnet.CreateChains(ctx, log, apiURI); err != nil {
		return nil, err
	}
	l1.chainID = l1.subnet.Chains[0].ChainID

	l1.validators = tmpnet.NewNodesOrPanic(len(l1Weights))
	for _, node := range l1.validators {
		node.Flags[config.TrackSubnetsKey] = l1.subnet.SubnetID.String()
		if err := network.EnsureNodeConfig(node); err != nil {
			return nil, err
		}
	}
	// The P-Chain keeps a conversion's validators sorted by node ID, and the i-th of them gets
	// validationID sha256(subnetID || i): sort first so that index i is also ours.
	slices.SortFunc(l1.validators, func(a, b *tmpnet.Node) int { return bytes.Compare(a.NodeID.Bytes(), b.NodeID.Bytes()) })
	conversion := make([]*txs.ConvertSubnetToL1Validator, 0, len(l1Weights))
	for i, node := range l1.validators {
		pop, err := node.GetProofOfPossession()
		if err != nil {
			return nil, err
		}
		conversion = append(conversion, &txs.ConvertSubnetToL1Validator{
			NodeID:                node.NodeID.Bytes(),
			Weight:                l1Weights[i],
			Balance:               l1ValidatorBalance,
			Signer:                *pop,
			RemainingBalanceOwner: message.PChainOwner{},
			DeactivationOwner:     message.PChainOwner{},
		})
		l1.subnet.ValidatorIDs = append(l1.subnet.ValidatorIDs, node.NodeID)
	}

	wallet, err := l1.subnet.GetWallet(ctx, apiURI)
	if err != nil {
		return nil, err
	}
	managerAddress := l1.manager.EthAddress()
	tx, err := wallet.P().IssueConvertSubnetToL1Tx(
		l1.subnet.SubnetID, l1.chainID, managerAddress.Bytes(), conversion, common.WithContext(ctx),
	)
	if err != nil {
		return nil, fmt.Errorf("ConvertSubnetToL1Tx: %w", err)
	}
	l1.conversionTxID = tx.ID()
	conversionHeight, err := platformvm.NewClient(apiURI).GetHeight(ctx)
	if err != nil {
		return nil, err
	}
	log.Info("converted the subnet to an L1")

	// The nodes join the network description only now, so that the chain configuration they
	// are started with includes the L1 chain's.
	network.Subnets = append(network.Subnets, l1.subnet)
	network.Nodes = append(network.Nodes, l1.validators...)
	if err := network.Write(); err != nil {
		return nil, err
	}
	for _, node := range l1.validators {
		if err := network.StartNode(ctx, node); err != nil {
			return nil, err
		}
	}
	if err := tmpnet.WaitForHealthyNodes(ctx, log, l1.validators); err != nil {
		return nil, err
	}
	for _, node := range l1.validators {
		if err := waitForEVM(ctx, rpcURL(node.GetAccessibleURI(), l1.chainID.String())); err != nil {
			return nil, err
		}
	}
	// Aggregators sign at the proposed P-Chain height by default, which trails the tip: until it
	// reaches the conversion, the L1 has no validators there and nothing it signs can verify.
	if err := waitForProposedSet(ctx, apiURI, l1.subnet.SubnetID, len(l1.validators)); err != nil {
		return nil, err
	}
	if err := advancePChainEpoch(ctx, apiURI, wallet, conversionHeight); err != nil {
		return nil, err
	}
	return l1, nil
}

// waitForProposedSet waits until the subnet's validator set at the proposed height has n members.
func waitForProposedSet(ctx context.Context, uri string, subnetID ids.ID, n int) error {
	client := platformvm.NewClient(uri)
	for {
		vdrs, err := client.GetValidatorsAt(ctx, subnetID, platformapi.ProposedHeight)
		if err == nil && len(vdrs) == n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the L1's set at the proposed height never reached %d validators: %w", n, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

// subnetEVMGenesis funds the given keys and enables Warp from genesis, verified against the
// L1's own validators (Primary Network signers are not required).
func subnetEVMGenesis(funded []*secp256k1.PrivateKey) ([]byte, error) {
	balance, _ := new(big.Int).SetString("100000000000000000000000000", 10) // 1e8 tokens
	alloc := map[string]any{}
	for _, key := range funded {
		alloc[key.EthAddress().Hex()] = map[string]string{"balance": "0x" + balance.Text(16)}
	}
	now := time.Now().Unix()
	return json.Marshal(map[string]any{
		"config": map[string]any{
			"chainId":             l1EVMChainID,
			"homesteadBlock":      0,
			"eip150Block":         0,
			"eip155Block":         0,
			"eip158Block":         0,
			"byzantiumBlock":      0,
			"constantinopleBlock": 0,
			"petersburgBlock":     0,
			"istanbulBlock":       0,
			"muirGlacierBlock":    0,
			"feeConfig": map[string]any{
				"gasLimit":                 20000000,
				"minBaseFee":               1000000000,
				"targetGas":                100000000,
				"baseFeeChangeDenominator": 48,
				"minBlockGasCost":          0,
				"maxBlockGasCost":          10000000,
				"targetBlockRate":          2,
				"blockGasCostStep":         500000,
			},
			"warpConfig": map[string]any{
				"blockTimestamp":               now,
				"quorumNumerator":              67,
				"requirePrimaryNetworkSigners": false,
			},
		},
		"alloc":      alloc,
		"nonce":      "0x0",
		"timestamp":  fmt.Sprintf("0x%x", now),
		"extraData":  "0x00",
		"gasLimit":   "0x1312D00",
		"difficulty": "0x0",
		"mixHash":    "0x0000000000000000000000000000000000000000000000000000000000000000",
		"coinbase":   "0x0000000000000000000000000000000000000000",
		"number":     "0x0",
		"gasUsed":    "0x0",
		"parentHash": "0x0000000000000000000000000000000000000000000000000000000000000000",
	})
}

func rpcURL(nodeURI, chain string) string { return nodeURI + "/ext/bc/" + chain + "/rpc" }
func wsURL(nodeURI, chain string) string {
	return strings.Replace(nodeURI, "http://", "ws://", 1) + "/ext/bc/" + chain + "/ws"
}

// waitForEVM waits until an EVM chain answers eth_chainId.
func waitForEVM(ctx context.Context, url string) error {
	for {
		if _, err := evmChainID(ctx, url); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s never answered eth_chainId: %w", url, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

func evmChainID(ctx context.Context, url string) (uint64, error) {
	body := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var reply struct {
		Result string `json:"result"`
	}
	if err := json.NewDecoder(res.Body).Decode(&reply); err != nil {
		return 0, err
	}
	id, ok := new(big.Int).SetString(strings.TrimPrefix(reply.Result, "0x"), 16)
	if !ok {
		return 0, fmt.Errorf("eth_chainId answered %q", reply.Result)
	}
	return id.Uint64(), nil
}

// pChainStatus is used by describe to double-check the conversion was committed.
func pChainCommitted(ctx context.Context, uri string, txID ids.ID) error {
	status, err := platformvm.NewClient(uri).GetTxStatus(ctx, txID)
	if err != nil {
		return err
	}
	if status.Status.String() != "Committed" {
		return fmt.Errorf("conversion tx %s is %s", txID, status.Status)
	}
	return nil
}
