package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/proposervm"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

// advancePChainEpoch waits until the P-Chain's current epoch (ACP-181) references a P-Chain
// height of at least `height`. The P-Chain verifies the Warp messages of RegisterL1ValidatorTx
// and SetL1ValidatorWeightTx against the L1's set at its epoch's height, and an epoch only
// ends with a block after its duration: on an idle P-Chain it would keep referencing a height
// from before the conversion, where the L1 has no validators. So, as avalanchego's own L1 e2e
// test does, wait out the epoch and issue a small transfer to seal it.
func advancePChainEpoch(ctx context.Context, uri string, wallet *primary.Wallet, height uint64) error {
	epochs := proposervm.NewJSONRPCClient(uri, "P")
	for {
		epoch, err := epochs.GetCurrentEpoch(ctx)
		if err != nil {
			return fmt.Errorf("proposervm.getCurrentEpoch: %w", err)
		}
		if epoch.PChainHeight >= height {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
		}
		_, err = wallet.P().IssueBaseTx([]*avax.TransferableOutput{{
			Asset: avax.Asset{ID: wallet.P().Builder().Context().AVAXAssetID},
			Out: &secp256k1fx.TransferOutput{
				Amt:          units.MilliAvax,
				OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{ids.GenerateTestShortID()}},
			},
		}}, common.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("a transfer to end the P-Chain's epoch: %w", err)
		}
	}
}

// advanceEVMEpoch waits until an EVM chain's current epoch references a P-Chain height of at
// least `height`, sealing epochs with 0-value transfers from `key` meanwhile. A chain verifies
// Warp messages against the signing subnet's set at its epoch's height, and a chain started a
// moment ago is still in its first epoch, which references P-Chain height 0 (where the L1 has no
// validators): a Teleporter message delivered there could not verify until some later block
// sealed that epoch. The tests and the relayer expect deliveries to work as soon as the network
// is described.
func advanceEVMEpoch(ctx context.Context, chain evmChain, nodeURI, alias string, key *secp256k1.PrivateKey, height uint64) error {
	epochs := proposervm.NewJSONRPCClient(nodeURI, alias)
	self := key.EthAddress()
	for {
		epoch, err := epochs.GetCurrentEpoch(ctx)
		if err != nil {
			return fmt.Errorf("%s: proposervm.getCurrentEpoch: %w", chain.name, err)
		}
		if epoch.PChainHeight >= height {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: its epoch still references P-Chain height %d, below %d: %w", chain.name, epoch.PChainHeight, height, ctx.Err())
		case <-time.After(5 * time.Second):
		}
		nonce, err := nonceOf(ctx, chain, self)
		if err != nil {
			return err
		}
		hash, err := sendTx(ctx, chain, key, nonce, &self, nil)
		if err != nil {
			return fmt.Errorf("%s: a transfer to end its epoch: %w", chain.name, err)
		}
		if _, err := waitForReceipt(ctx, chain, hash); err != nil {
			return err
		}
	}
}
