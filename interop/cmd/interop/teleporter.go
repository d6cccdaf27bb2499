package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/crypto"
)

// The contracts interop/contracts/compile.ts builds (interop/build.sh runs it): our own
// Teleporter-v1-compatible messenger (icm-contracts cannot be fetched here; docs/interop.md)
// and a receiver for the tests.
const (
	messengerContract = "TeleporterMessengerCompatible"
	receiverContract  = "ReceiverForTests"
	// relayerConfigFile and relayerKeyFile are written into the network's directory.
	relayerConfigFile = "relayer.json"
	relayerKeyFile    = "relayer-key"
	relayerStoreDir   = "relayer-store"
	// relayerMaxRequiredGasLimit is the routes' cap on a message's requiredGasLimit: above it the
	// relayer skips the message (the interop tests send one above it on purpose).
	relayerMaxRequiredGasLimit = 2_000_000
)

// teleporterDeployment holds the addresses, the same on every chain: the deployer creates the
// messenger with its first transaction (nonce 0) and the receiver with its second on each chain.
// Teleporter trusts only messages whose Warp origin is a messenger at its own address, as the
// real one deployed with Nick's method does.
type teleporterDeployment struct {
	messenger common.Address
	receiver  common.Address
}

// deployTeleporter deploys the messenger and the test receiver on every chain, in parallel.
func deployTeleporter(ctx context.Context, contractsDir string, deployer *secp256k1.PrivateKey, chains []evmChain) (*teleporterDeployment, error) {
	messengerCode, err := readBytecode(contractsDir, messengerContract)
	if err != nil {
		return nil, err
	}
	receiverCode, err := readBytecode(contractsDir, receiverContract)
	if err != nil {
		return nil, err
	}
	from := deployer.EthAddress()
	deployment := &teleporterDeployment{messenger: crypto.CreateAddress(from, 0), receiver: crypto.CreateAddress(from, 1)}
	// The receiver's constructor takes the messenger's address (one ABI word).
	receiverInit := append(append([]byte{}, receiverCode...), common.LeftPadBytes(deployment.messenger.Bytes(), 32)...)
	errs := make(chan error, len(chains))
	for _, chain := range chains {
		go func() { errs <- deployOn(ctx, chain, deployer, deployment, messengerCode, receiverInit) }()
	}
	var all []error
	for range chains {
		all = append(all, <-errs)
	}
	if err := errors.Join(all...); err != nil {
		return nil, fmt.Errorf("deploying Teleporter: %w", err)
	}
	return deployment, nil
}

func deployOn(ctx context.Context, chain evmChain, deployer *secp256k1.PrivateKey, want *teleporterDeployment, messengerInit, receiverInit []byte) error {
	nonce, err := nonceOf(ctx, chain, deployer.EthAddress())
	if err != nil {
		return err
	}
	if nonce != 0 {
		return fmt.Errorf("%s: the deployer %s has nonce %d, not 0: its messenger would not be at %s as on the other chain", chain.name, deployer.EthAddress(), nonce, want.messenger)
	}
	for i, step := range []struct {
		init []byte
		want common.Address
	}{{messengerInit, want.messenger}, {receiverInit, want.receiver}} {
		hash, err := sendTx(ctx, chain, deployer, uint64(i), nil, step.init)
		if err != nil {
			return err
		}
		receipt, err := waitForReceipt(ctx, chain, hash)
		if err != nil {
			return err
		}
		if receipt.ContractAddress == nil || *receipt.ContractAddress != step.want {
			return fmt.Errorf("%s: contract created at %v, expected %s", chain.name, receipt.ContractAddress, step.want)
		}
		if ok, err := hasCode(ctx, chain, step.want); err != nil || !ok {
			return fmt.Errorf("%s: no code at %s after its creation (%v)", chain.name, step.want, err)
		}
	}
	return nil
}

func readBytecode(dir, name string) ([]byte, error) {
	path := filepath.Join(dir, name+".json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (interop/build.sh compiles interop/contracts into it)", err)
	}
	var artifact struct {
		Bytecode string `json:"bytecode"`
	}
	if err := json.Unmarshal(raw, &artifact); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	code, err := hexutil.Decode(artifact.Bytecode)
	if err != nil || len(code) == 0 {
		return nil, fmt.Errorf("%s: no bytecode (%v)", path, err)
	}
	return code, nil
}

// writeRelayerConfig writes a `warpgate relay` configuration into the network's directory: the
// aggregator configured as the interop tests configure `serve`, and a relayer section that
// relays Teleporter both ways between the C-Chain and the L1, paying with `payer` (whose key
// is in a file beside it, readable by its owner only). Returns the configuration's path.
func writeRelayerConfig(desc *networkDescription, payer fundedKeyJSON) (string, error) {
	keyPath := filepath.Join(desc.NetworkDir, relayerKeyFile)
	if err := os.WriteFile(keyPath, []byte(payer.PrivateKey+"\n"), 0o600); err != nil {
		return "", err
	}
	type chain struct {
		Name              string `json:"name"`
		BlockchainID      string `json:"blockchainId"`
		RPCURL            string `json:"rpcUrl"`
		WSURL             string `json:"wsUrl"`
		TeleporterAddress string `json:"teleporterAddress"`
	}
	type route struct {
		Source              string `json:"source"`
		Destination         string `json:"destination"`
		MaxRequiredGasLimit uint64 `json:"maxRequiredGasLimit"`
	}
	cChain, l1 := desc.CChain.BlockchainID, desc.L1.BlockchainID
	config := map[string]any{
		"host":           "127.0.0.1",
		"port":           0,
		"upstreams":      map[string]any{"node": desc.Nodes[0].URI},
		"localNetworkId": desc.NetworkID,
		"peers":          []any{},
		"p2p":            map[string]any{"enabled": true},
		"readiness":      map[string]any{"subnets": []string{constants.PrimaryNetworkID.String(), desc.L1.SubnetID}},
		"relayer": map[string]any{
			"chains": []chain{
				{"C-Chain", cChain, desc.CChain.RPCURL, desc.CChain.WSURL, strings.ToLower(desc.Teleporter[cChain])},
				{"L1", l1, desc.L1.RPCURL, desc.L1.WSURL, strings.ToLower(desc.Teleporter[l1])},
			},
			"routes": []route{
				{cChain, l1, relayerMaxRequiredGasLimit},
				{l1, cChain, relayerMaxRequiredGasLimit},
			},
			"keys":  []map[string]string{{"privateKeyFile": keyPath}},
			"store": map[string]any{"path": filepath.Join(desc.NetworkDir, relayerStoreDir)},
		},
	}
	raw, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(desc.NetworkDir, relayerConfigFile)
	return path, os.WriteFile(path, append(raw, '\n'), 0o644)
}
