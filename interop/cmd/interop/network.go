package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/tests/fixture/tmpnet"
	"github.com/ava-labs/avalanchego/utils/logging"
	"go.uber.org/zap"
)

const (
	// networkOwner names the network directories this harness creates, so a later run can
	// recognise (and clean up) what an earlier one left behind.
	networkOwner = "warpgate-interop"
	// ownerPIDFile records which process owns a network directory.
	ownerPIDFile = "owner.pid"
	// keepFile marks a directory kept for inspection after a failed start.
	keepFile = "KEPT-AFTER-FAILED-START"
	// primaryValidators of equal weight: stopping any one leaves 75% of the weight.
	primaryValidators = 4
)

type networkOptions struct {
	avalanchego  string
	pluginDir    string
	rootDir      string
	contractsDir string
	startTimeout time.Duration
}

func runNetwork(args []string) error {
	fs := flag.NewFlagSet("network", flag.ContinueOnError)
	opts := networkOptions{}
	fs.StringVar(&opts.avalanchego, "avalanchego", "", "path of the avalanchego binary")
	fs.StringVar(&opts.pluginDir, "plugin-dir", "", "directory holding the subnet-evm plugin")
	fs.StringVar(&opts.rootDir, "root-dir", "", "directory under which network directories are created")
	fs.StringVar(&opts.contractsDir, "contracts-dir", defaultContractsDir(), "directory holding the compiled contracts (interop/build.sh writes them beside this program)")
	fs.DurationVar(&opts.startTimeout, "start-timeout", 10*time.Minute, "how long the network may take to become healthy")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for name, path := range map[string]string{"-avalanchego": opts.avalanchego, "-plugin-dir": opts.pluginDir, "-root-dir": opts.rootDir} {
		if path == "" {
			return fmt.Errorf("network: %s is required", name)
		}
	}
	if _, err := os.Stat(opts.avalanchego); err != nil {
		return fmt.Errorf("network: avalanchego binary: %w", err)
	}
	if _, err := os.Stat(filepath.Join(opts.pluginDir, subnetEVMID.String())); err != nil {
		return fmt.Errorf("network: subnet-evm plugin: %w", err)
	}
	if err := os.MkdirAll(opts.rootDir, 0o755); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	// Whatever an earlier run left behind (it was killed, or the machine rebooted) goes first,
	// so that stray nodes never compete with this run for the CPU.
	cleanLeftovers(opts.rootDir)

	log := logging.NewLogger("", logging.NewWrappedCore(logging.Info, nopCloser{os.Stderr}, logging.Plain.ConsoleEncoder()))
	ctx, stopSignals := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stopSignals()
	// If whatever started us dies without signalling (npm killed with SIGKILL), we are
	// re-parented: treat that like SIGTERM rather than leave a network nobody will stop.
	ctx, orphaned := context.WithCancel(ctx)
	defer orphaned()
	go exitWithParent(orphaned)

	network := &tmpnet.Network{
		Owner: networkOwner,
		Nodes: tmpnet.NewNodesOrPanic(primaryValidators),
		DefaultFlags: tmpnet.FlagsMap{
			config.LogLevelKey: logging.Info.String(),
			config.FdLimitKey:  strconv.FormatUint(fdLimit(), 10),
		},
		PrimaryChainConfigs: map[string]tmpnet.ConfigMap{
			"C": {"warp-api-enabled": true, "log-level": "info"},
		},
		DefaultRuntimeConfig: tmpnet.NodeRuntimeConfig{
			Process: &tmpnet.ProcessRuntimeConfig{AvalancheGoPath: opts.avalanchego, PluginDir: opts.pluginDir},
		},
	}
	if err := network.EnsureDefaultConfig(ctx, log); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	if err := network.Create(opts.rootDir); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	if err := os.WriteFile(filepath.Join(network.Dir, ownerPIDFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	if err := startReaper(network.Dir); err != nil {
		_ = os.RemoveAll(network.Dir)
		return fmt.Errorf("network: starting the reaper: %w", err)
	}

	started := time.Now()
	startCtx, cancelStart := context.WithTimeout(ctx, opts.startTimeout)
	desc, err := startEverything(startCtx, log, network, opts.contractsDir)
	cancelStart()
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted while starting: nothing worth keeping.
			shutdown(network)
			return errors.New("network: interrupted while starting")
		}
		return failedStart(network, time.Since(started), err)
	}
	desc.StartSeconds = time.Since(started).Seconds()
	line, err := json.Marshal(desc)
	if err != nil {
		shutdown(network)
		return err
	}
	fmt.Println(string(line))
	log.Info("network healthy; stop it with SIGTERM or SIGINT")
	// Kept up through the shutdown below, whose stop waits for the nodes to be gone.
	go reapExitedNodes(context.Background(), network.Dir)

	<-ctx.Done()
	shutdown(network)
	return nil
}

// startEverything starts the Primary Network, then the L1, deploys Teleporter on both EVM
// chains, and describes the result.
func startEverything(ctx context.Context, log logging.Logger, network *tmpnet.Network, contractsDir string) (*networkDescription, error) {
	// Before any node starts: a missing build fails at once rather than after the whole start.
	if _, err := readBytecode(contractsDir, messengerContract); err != nil {
		return nil, err
	}
	if err := network.Bootstrap(ctx, log); err != nil {
		return nil, fmt.Errorf("primary network: %w", err)
	}
	l1, err := startL1(ctx, log, network)
	if err != nil {
		return nil, fmt.Errorf("L1: %w", err)
	}
	desc, err := describe(ctx, network, l1)
	if err != nil {
		return nil, err
	}
	chains := []evmChain{
		{name: "C-Chain", rpcURL: desc.CChain.RPCURL, chainID: desc.CChain.EVMChainID},
		{name: "L1", rpcURL: desc.L1.RPCURL, chainID: desc.L1.EVMChainID},
	}
	deployment, err := deployTeleporter(ctx, contractsDir, l1.deployer, chains)
	if err != nil {
		return nil, err
	}
	messenger, receiver := strings.ToLower(deployment.messenger.Hex()), strings.ToLower(deployment.receiver.Hex())
	desc.Teleporter = map[string]string{desc.CChain.BlockchainID: messenger, desc.L1.BlockchainID: messenger}
	desc.Receivers = map[string]string{desc.CChain.BlockchainID: receiver, desc.L1.BlockchainID: receiver}
	log.Info("deployed Teleporter", zap.String("messenger", messenger), zap.String("receiver", receiver))
	if err := advanceEVMEpochs(ctx, desc, l1, chains); err != nil {
		return nil, err
	}
	log.Info("the EVM chains' epochs reference the L1's validators")
	if desc.RelayerConfig, err = writeRelayerConfig(desc, desc.Funded[0]); err != nil {
		return nil, err
	}
	return desc, nil
}

// advanceEVMEpochs waits, on both EVM chains at once, until their epochs reference a P-Chain
// height where the L1 has its validators (see advanceEVMEpoch).
func advanceEVMEpochs(ctx context.Context, desc *networkDescription, l1 *l1Network, chains []evmChain) error {
	nodes := []struct{ uri, alias string }{{desc.Nodes[0].URI, "C"}, {desc.L1.Validators[0].URI, desc.L1.BlockchainID}}
	errs := make(chan error, len(chains))
	for i, chain := range chains {
		go func() {
			errs <- advanceEVMEpoch(ctx, chain, nodes[i].uri, nodes[i].alias, l1.deployer, l1.conversionHeight)
		}()
	}
	var all []error
	for range chains {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// defaultContractsDir is interop/.build/contracts when this program is interop/.build/interop.
func defaultContractsDir() string {
	self, err := os.Executable()
	if err != nil {
		return "contracts"
	}
	return filepath.Join(filepath.Dir(self), "contracts")
}

// shutdown stops every node and removes the network's directory.
func shutdown(network *tmpnet.Network) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := network.Stop(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "interop: stopping nodes:", err)
	}
	killNodes(network.Dir, 20*time.Second)
	if err := os.RemoveAll(network.Dir); err != nil {
		fmt.Fprintln(os.Stderr, "interop: removing", network.Dir+":", err)
	}
}

// failedStart stops the nodes but keeps their directory, and prints each node's log tail so
// the reason is visible where the run was started.
func failedStart(network *tmpnet.Network, after time.Duration, cause error) error {
	_ = os.WriteFile(filepath.Join(network.Dir, keepFile), []byte(cause.Error()+"\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := network.Stop(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "interop: stopping nodes:", err)
	}
	// A node whose start was abandoned may not have recorded its pid for tmpnet's Stop.
	killNodes(network.Dir, 20*time.Second)
	for _, node := range network.Nodes {
		if node.DataDir == "" {
			continue
		}
		fmt.Fprintf(os.Stderr, "---- %s (%s) last lines of logs/main.log\n", node.NodeID, node.DataDir)
		fmt.Fprint(os.Stderr, tail(filepath.Join(node.DataDir, "logs", "main.log"), 25))
	}
	return fmt.Errorf("network did not start within %s: %v; its directory is kept at %s", after.Round(time.Second), cause, network.Dir)
}

// startReaper starts a detached watcher that stops this network's nodes if this process dies
// without cleaning up (SIGKILL, OOM): tmpnet starts nodes in their own sessions, so nothing
// else would stop them.
func startReaper(dir string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "reap", "-parent", strconv.Itoa(os.Getpid()), "-dir", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// infoNetworkID asks a node for its network ID (88888 for tmpnet's local networks).
func infoNetworkID(ctx context.Context, uri string) (uint32, error) {
	return info.NewClient(uri).GetNetworkID(ctx)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func exitWithParent(orphaned context.CancelFunc) {
	parent := os.Getppid()
	for range time.Tick(time.Second) {
		if os.Getppid() != parent {
			fmt.Fprintln(os.Stderr, "interop: the process that started the network exited; stopping it")
			orphaned()
			return
		}
	}
}

// fdLimit is avalanchego's default file-descriptor limit (32768) or the hard limit, whichever
// is lower: asked for more than the hard limit, a node refuses to start, and containers (this
// project's machines, CI) often cap it at 20000 without the privilege to raise it.
func fdLimit() uint64 {
	const avalanchegoDefault = 32768
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &limit); err != nil || limit.Max >= avalanchegoDefault {
		return avalanchegoDefault
	}
	return limit.Max
}
