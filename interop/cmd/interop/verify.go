package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
)

// verdict is the one JSON line `interop verify` prints.
type verdict struct {
	Valid        bool   `json:"valid"`
	Error        string `json:"error,omitempty"`
	MessageID    string `json:"messageId,omitempty"`
	SourceChain  string `json:"sourceChainId,omitempty"`
	SubnetID     string `json:"subnetId,omitempty"`
	Height       uint64 `json:"height"`
	Signers      int    `json:"signers"`
	SignedWeight uint64 `json:"signedWeight"`
	TotalWeight  uint64 `json:"totalWeight"`
	// SignerNodeIDs are the NodeIDs of the validators whose bits are set (a validator of the
	// canonical set may have several NodeIDs sharing one BLS key), so a test can check who signed.
	SignerNodeIDs []string `json:"signerNodeIds"`
}

// runVerify checks a signed Warp message the way a receiving chain does, with avalanchego's
// own code: parse it, take the canonical validator set of the signing subnet at the given
// P-Chain height (from a real node's platform.getValidatorsAt), check the network ID, the
// signer bitset, the quorum, and the aggregate BLS signature.
//
// Exit status: 0 valid, 2 invalid (the reason is in the JSON line), 1 could not check.
func runVerify(args []string) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	uri := fs.String("uri", "", "a node's URI (its P-Chain API answers getValidatorsAt)")
	msgHex := fs.String("message", "", "the signed Warp message, hex (0x optional)")
	heightFlag := fs.Int64("height", -1, "P-Chain height to verify at (required; 0 is the genesis set)")
	subnet := fs.String("subnet", "", "signing subnet ID; default: the subnet that validates the source chain")
	networkID := fs.Uint("network-id", 0, "expected network ID; default: the node's")
	quorum := fs.Uint64("quorum", 67, "quorum numerator (of 100)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *uri == "" || *msgHex == "" || *heightFlag < 0 {
		return errors.New("verify: -uri, -message and -height are required")
	}
	height := new(uint64)
	*height = uint64(*heightFlag)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	raw, err := hex.DecodeString(strings.TrimPrefix(*msgHex, "0x"))
	if err != nil {
		return report(verdict{Error: "message is not hex: " + err.Error(), Height: *height})
	}
	msg, err := warp.ParseMessage(raw)
	if err != nil {
		return report(verdict{Error: "parse: " + err.Error(), Height: *height})
	}
	v := verdict{MessageID: msg.UnsignedMessage.ID().String(), SourceChain: msg.SourceChainID.String(), Height: *height}

	pClient := platformvm.NewClient(*uri)
	subnetID := ids.Empty
	if *subnet != "" {
		if subnetID, err = ids.FromString(*subnet); err != nil {
			return fmt.Errorf("verify: -subnet: %w", err)
		}
	} else if subnetID, err = pClient.ValidatedBy(ctx, msg.SourceChainID); err != nil {
		return fmt.Errorf("verify: platform.validatedBy(%s): %w", msg.SourceChainID, err)
	}
	v.SubnetID = subnetID.String()
	expectedNetwork := uint32(*networkID)
	if expectedNetwork == 0 {
		if expectedNetwork, err = infoNetworkID(ctx, *uri); err != nil {
			return fmt.Errorf("verify: info.getNetworkID: %w", err)
		}
	}

	vdrs, err := pClient.GetValidatorsAt(ctx, subnetID, platformapi.Height(*height))
	if err != nil {
		return fmt.Errorf("verify: platform.getValidatorsAt(%s, %d): %w", subnetID, *height, err)
	}
	canonical, err := validators.FlattenValidatorSet(vdrs)
	if err != nil {
		return report(withError(v, "canonical set: "+err.Error()))
	}
	v.TotalWeight = canonical.TotalWeight
	if bitSet, ok := msg.Signature.(*warp.BitSetSignature); ok {
		signers, ferr := warp.FilterValidators(set.BitsFromBytes(bitSet.Signers), canonical.Validators)
		if ferr == nil {
			v.Signers = len(signers)
			v.SignedWeight, _ = warp.SumWeight(signers)
			for _, signer := range signers {
				for _, nodeID := range signer.NodeIDs {
					v.SignerNodeIDs = append(v.SignerNodeIDs, nodeID.String())
				}
			}
		}
	}
	if err := msg.Signature.Verify(&msg.UnsignedMessage, expectedNetwork, canonical, *quorum, 100); err != nil {
		return report(withError(v, err.Error()))
	}
	v.Valid = true
	return report(v)
}

func withError(v verdict, msg string) verdict {
	v.Error = msg
	return v
}

func report(v verdict) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	if !v.Valid {
		os.Exit(2)
	}
	return nil
}
