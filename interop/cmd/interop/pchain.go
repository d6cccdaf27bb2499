package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

// runNewValidatorKey prints a fresh node identity for an L1 validator registration: a random
// NodeID and a BLS key with its proof of possession (made by avalanchego's own signer).
func runNewValidatorKey(_ []string) error {
	sk, err := localsigner.New()
	if err != nil {
		return err
	}
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		return err
	}
	return printJSON(map[string]string{
		"nodeId":            ids.GenerateTestNodeID().String(),
		"publicKey":         "0x" + hex.EncodeToString(pop.PublicKey[:]),
		"proofOfPossession": "0x" + hex.EncodeToString(pop.ProofOfPossession[:]),
	})
}

// runIssue issues a P-Chain transaction that carries a signed Warp message, paid by a funded
// key, and waits until it is committed:
//
//	interop issue register -uri U -key PrivateKey-… -message HEX -pop HEX [-balance nAVAX]
//	interop issue weight   -uri U -key PrivateKey-… -message HEX
func runIssue(args []string) error {
	if len(args) < 1 || (args[0] != "register" && args[0] != "weight") {
		return errors.New("issue: register|weight")
	}
	kind := args[0]
	fs := flag.NewFlagSet("issue "+kind, flag.ContinueOnError)
	uri := fs.String("uri", "", "a node's URI")
	keyText := fs.String("key", "", "the paying key, PrivateKey-…")
	msgHex := fs.String("message", "", "the signed Warp message, hex")
	popHex := fs.String("pop", "", "register: the BLS proof of possession, hex")
	balance := fs.Uint64("balance", 100_000_000, "register: nAVAX for the validator's continuous fee")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	key := new(secp256k1.PrivateKey)
	if err := key.UnmarshalText([]byte(*keyText)); err != nil {
		return fmt.Errorf("issue: -key: %w", err)
	}
	message, err := hex.DecodeString(strings.TrimPrefix(*msgHex, "0x"))
	if err != nil {
		return fmt.Errorf("issue: -message: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	keychain := secp256k1fx.NewKeychain(key)
	wallet, err := primary.MakeWallet(ctx, *uri, keychain, keychain, primary.WalletConfig{})
	if err != nil {
		return fmt.Errorf("issue: wallet: %w", err)
	}
	var tx *txs.Tx
	switch kind {
	case "register":
		raw, err := hex.DecodeString(strings.TrimPrefix(*popHex, "0x"))
		if err != nil || len(raw) != bls.SignatureLen {
			return fmt.Errorf("issue: -pop must be %d bytes of hex", bls.SignatureLen)
		}
		tx, err = wallet.P().IssueRegisterL1ValidatorTx(*balance, [bls.SignatureLen]byte(raw), message, common.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("issue: RegisterL1ValidatorTx: %w", err)
		}
	case "weight":
		tx, err = wallet.P().IssueSetL1ValidatorWeightTx(message, common.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("issue: SetL1ValidatorWeightTx: %w", err)
		}
	}
	return printJSON(map[string]string{"txId": tx.ID().String()})
}

func printJSON(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	return nil
}
