package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"
)

// evmChain is what the harness needs to send transactions to one EVM chain over JSON-RPC.
type evmChain struct {
	name    string
	rpcURL  string
	chainID uint64
}

// jsonRPC calls one method and decodes its result into out.
func jsonRPC(ctx context.Context, url, method string, params []any, out any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&reply); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if reply.Error != nil {
		return fmt.Errorf("%s: %s", method, reply.Error.Message)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(reply.Result, out)
}

// sendTx signs an EIP-1559 transaction (a contract creation when to is nil) and broadcasts it.
func sendTx(ctx context.Context, chain evmChain, key *secp256k1.PrivateKey, nonce uint64, to *common.Address, data []byte) (common.Hash, error) {
	var block struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
	if err := jsonRPC(ctx, chain.rpcURL, "eth_getBlockByNumber", []any{"latest", false}, &block); err != nil {
		return common.Hash{}, err
	}
	if block.BaseFee == nil {
		return common.Hash{}, fmt.Errorf("%s: the latest block has no base fee", chain.name)
	}
	var tip hexutil.Big
	if err := jsonRPC(ctx, chain.rpcURL, "eth_maxPriorityFeePerGas", nil, &tip); err != nil {
		return common.Hash{}, err
	}
	from := key.EthAddress()
	call := map[string]any{"from": from, "data": hexutil.Bytes(data)}
	if to != nil {
		call["to"] = to
	}
	var estimate hexutil.Uint64
	if err := jsonRPC(ctx, chain.rpcURL, "eth_estimateGas", []any{call}, &estimate); err != nil {
		return common.Hash{}, fmt.Errorf("%s: %w", chain.name, err)
	}
	chainID := new(big.Int).SetUint64(chain.chainID)
	// Twice the base fee: room for it to rise while the transaction waits.
	feeCap := new(big.Int).Add(new(big.Int).Mul(block.BaseFee.ToInt(), big.NewInt(2)), tip.ToInt())
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{
		ChainID:   chainID,
		Nonce:     nonce,
		GasTipCap: tip.ToInt(),
		GasFeeCap: feeCap,
		Gas:       uint64(estimate) * 6 / 5,
		To:        to,
		Data:      data,
	}), types.NewLondonSigner(chainID), key.ToECDSA())
	if err != nil {
		return common.Hash{}, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return common.Hash{}, err
	}
	var hash common.Hash
	if err := jsonRPC(ctx, chain.rpcURL, "eth_sendRawTransaction", []any{hexutil.Bytes(raw)}, &hash); err != nil {
		return common.Hash{}, fmt.Errorf("%s: %w", chain.name, err)
	}
	return hash, nil
}

type txReceipt struct {
	Status          hexutil.Uint64  `json:"status"`
	ContractAddress *common.Address `json:"contractAddress"`
}

// waitForReceipt polls until the transaction is in an accepted block; a reverted one is an error.
func waitForReceipt(ctx context.Context, chain evmChain, hash common.Hash) (*txReceipt, error) {
	for {
		var receipt *txReceipt
		if err := jsonRPC(ctx, chain.rpcURL, "eth_getTransactionReceipt", []any{hash}, &receipt); err != nil && !isTransient(err) {
			return nil, err
		}
		if receipt != nil {
			if receipt.Status != 1 {
				return nil, fmt.Errorf("%s: transaction %s reverted", chain.name, hash)
			}
			return receipt, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: no receipt for %s: %w", chain.name, hash, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// isTransient: a node busy or restarting its RPC answers so for a moment; polling goes on.
func isTransient(err error) bool {
	var netErr interface{ Timeout() bool }
	return errors.As(err, &netErr) || strings.Contains(err.Error(), "connection refused")
}

// nonceOf is the account's next nonce, pending transactions included.
func nonceOf(ctx context.Context, chain evmChain, address common.Address) (uint64, error) {
	var nonce hexutil.Uint64
	err := jsonRPC(ctx, chain.rpcURL, "eth_getTransactionCount", []any{address, "pending"}, &nonce)
	return uint64(nonce), err
}

// hasCode tells whether a contract is deployed at address.
func hasCode(ctx context.Context, chain evmChain, address common.Address) (bool, error) {
	var code hexutil.Bytes
	if err := jsonRPC(ctx, chain.rpcURL, "eth_getCode", []any{address, "latest"}, &code); err != nil {
		return false, err
	}
	return len(code) > 0, nil
}
