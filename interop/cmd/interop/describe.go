package main

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/tests/fixture/tmpnet"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
)

// networkDescription is the one JSON line `interop network` prints once everything is healthy.
type networkDescription struct {
	NetworkID  uint32          `json:"networkId"`
	NetworkDir string          `json:"networkDir"`
	Nodes      []nodeJSON      `json:"nodes"`
	CChain     cChainJSON      `json:"cChain"`
	PChainURL  string          `json:"pChainUrl"`
	L1         l1JSON          `json:"l1"`
	Funded     []fundedKeyJSON `json:"funded"`
	// PChainFundedKey pays for P-Chain transactions the harness issues (RegisterL1ValidatorTx,
	// SetL1ValidatorWeightTx), in avalanchego's PrivateKey-… form.
	PChainFundedKey string `json:"pChainFundedKey"`
	// Teleporter is our Teleporter-v1-compatible messenger per chain (blockchain ID, cb58), at
	// the same address on both; Receivers the test receiver per chain (teleporter.go).
	Teleporter map[string]string `json:"teleporter"`
	Receivers  map[string]string `json:"receivers"`
	// RelayerConfig is a `warpgate relay` configuration relaying Teleporter both ways between
	// the C-Chain and the L1, paying with funded[0] (the other funded keys stay free for senders).
	RelayerConfig string  `json:"relayerConfig"`
	StartSeconds  float64 `json:"startSeconds"`
}

type nodeJSON struct {
	NodeID         string `json:"nodeId"`
	URI            string `json:"uri"`
	StakingAddress string `json:"stakingAddress"`
}

type cChainJSON struct {
	BlockchainID string `json:"blockchainId"`
	EVMChainID   uint64 `json:"evmChainId"`
	RPCURL       string `json:"rpcUrl"`
	WSURL        string `json:"wsUrl"`
}

type l1JSON struct {
	SubnetID       string        `json:"subnetId"`
	BlockchainID   string        `json:"blockchainId"`
	EVMChainID     uint64        `json:"evmChainId"`
	RPCURL         string        `json:"rpcUrl"`
	WSURL          string        `json:"wsUrl"`
	Validators     []l1NodeJSON  `json:"validators"`
	ConversionTxID string        `json:"conversionTxId"`
	Manager        fundedKeyJSON `json:"manager"`
}

type l1NodeJSON struct {
	NodeID         string `json:"nodeId"`
	URI            string `json:"uri"`
	StakingAddress string `json:"stakingAddress"`
	Weight         uint64 `json:"weight"`
	ValidationID   string `json:"validationId"`
}

type fundedKeyJSON struct {
	PrivateKey string `json:"privateKey"`
	Address    string `json:"address"`
}

func describe(ctx context.Context, network *tmpnet.Network, l1 *l1Network) (*networkDescription, error) {
	primary := network.Nodes[:primaryValidators]
	uri := primary[0].GetAccessibleURI()
	networkID, err := infoNetworkID(ctx, uri)
	if err != nil {
		return nil, err
	}
	cChainID, err := info.NewClient(uri).GetBlockchainID(ctx, "C")
	if err != nil {
		return nil, err
	}
	cEVMChainID, err := evmChainID(ctx, rpcURL(uri, "C"))
	if err != nil {
		return nil, err
	}
	if err := pChainCommitted(ctx, uri, l1.conversionTxID); err != nil {
		return nil, err
	}
	l1URI := l1.validators[0].GetAccessibleURI()
	desc := &networkDescription{
		NetworkID:  networkID,
		NetworkDir: network.Dir,
		CChain: cChainJSON{
			BlockchainID: cChainID.String(),
			EVMChainID:   cEVMChainID,
			RPCURL:       rpcURL(uri, "C"),
			WSURL:        wsURL(uri, "C"),
		},
		PChainURL: uri + "/ext/bc/P",
		L1: l1JSON{
			SubnetID:       l1.subnet.SubnetID.String(),
			BlockchainID:   l1.chainID.String(),
			EVMChainID:     l1EVMChainID,
			RPCURL:         rpcURL(l1URI, l1.chainID.String()),
			WSURL:          wsURL(l1URI, l1.chainID.String()),
			ConversionTxID: l1.conversionTxID.String(),
			Manager:        fundedKey(l1.manager),
		},
		PChainFundedKey: l1.pChainFundedKey.String(),
	}
	for _, node := range primary {
		desc.Nodes = append(desc.Nodes, nodeJSON{
			NodeID:         node.NodeID.String(),
			URI:            node.GetAccessibleURI(),
			StakingAddress: node.StakingAddress.String(),
		})
	}
	for i, node := range l1.validators {
		desc.L1.Validators = append(desc.L1.Validators, l1NodeJSON{
			NodeID:         node.NodeID.String(),
			URI:            node.GetAccessibleURI(),
			StakingAddress: node.StakingAddress.String(),
			Weight:         l1Weights[i],
			ValidationID:   l1.subnet.SubnetID.Append(uint32(i)).String(),
		})
	}
	for _, key := range l1.funded {
		desc.Funded = append(desc.Funded, fundedKey(key))
	}
	if len(desc.Funded) < 2 {
		return nil, fmt.Errorf("only %d funded keys", len(desc.Funded))
	}
	return desc, nil
}

func fundedKey(key *secp256k1.PrivateKey) fundedKeyJSON {
	return fundedKeyJSON{PrivateKey: "0x" + hex.EncodeToString(key.Bytes()), Address: key.EthAddress().Hex()}
}
