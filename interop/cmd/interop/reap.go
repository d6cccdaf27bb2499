package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runReap waits for the process that owns a network directory to exit. If it exits and the
// directory is still there (the owner was killed before it could clean up), it stops the
// network's nodes and removes the directory (or keeps it when a failed start marked it).
func runReap(args []string) error {
	fs := flag.NewFlagSet("reap", flag.ContinueOnError)
	parent := fs.Int("parent", 0, "pid of the owning process")
	dir := fs.String("dir", "", "network directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *parent <= 0 || *dir == "" {
		return errors.New("reap: -parent and -dir are required")
	}
	for processAlive(*parent) {
		if _, err := os.Stat(*dir); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	reapDir(*dir)
	return nil
}

// cleanLeftovers reaps every network directory under root whose owner is gone.
func cleanLeftovers(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, entry := range entries {
		if !entry.IsDir() || !strings.HasSuffix(entry.Name(), networkOwner) {
			continue
		}
		dir := filepath.Join(root, entry.Name())
		raw, err := os.ReadFile(filepath.Join(dir, ownerPIDFile))
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil && perr == nil && processAlive(pid) {
			continue // another run is using it
		}
		fmt.Fprintln(os.Stderr, "interop: cleaning up a network an earlier run left at", dir)
		reapDir(dir)
	}
}

func reapDir(dir string) {
	killNodes(dir, 20*time.Second)
	if _, err := os.Stat(filepath.Join(dir, keepFile)); err == nil {
		return
	}
	_ = os.RemoveAll(dir)
}

// killNodes sends SIGTERM to each node of the network in dir (as recorded in its
// process.json), then SIGKILL to those still running after grace.
func killNodes(dir string, grace time.Duration) {
	pids := nodePIDs(dir)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		alive := 0
		for _, pid := range pids {
			if isAvalanchego(pid) {
				alive++
			}
		}
		if alive == 0 {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, pid := range pids {
		if isAvalanchego(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// nodePIDs finds the network's avalanchego processes: those recorded in a node's process.json,
// and any whose command line names the directory (tmpnet starts each node with
// --config-file <dir>/<NodeID>/flags.json), which includes a node still starting when its
// start was abandoned, before it wrote process.json.
func nodePIDs(dir string) []int {
	seen := map[int]bool{}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, entry := range entries {
			raw, err := os.ReadFile(filepath.Join(dir, entry.Name(), "process.json"))
			if err != nil {
				continue
			}
			var ctx struct {
				PID int `json:"pid"`
			}
			if json.Unmarshal(raw, &ctx) == nil && ctx.PID > 0 && isAvalanchego(ctx.PID) {
				seen[ctx.PID] = true
			}
		}
	}
	if procs, err := os.ReadDir("/proc"); err == nil {
		for _, p := range procs {
			pid, err := strconv.Atoi(p.Name())
			if err != nil {
				continue
			}
			raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if err == nil && strings.Contains(string(raw), "avalanchego") && strings.Contains(string(raw), dir+"/") {
				seen[pid] = true
			}
		}
	}
	pids := make([]int, 0, len(seen))
	for pid := range seen {
		pids = append(pids, pid)
	}
	return pids
}

func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return errors.Is(err, syscall.EPERM)
	}
	// A zombie has exited: it only waits for its parent to collect it.
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		if i := strings.LastIndexByte(string(raw), ')'); i > 0 && i+2 < len(raw) && raw[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// isAvalanchego guards against signalling an unrelated process that reused a recorded pid.
func isAvalanchego(pid int) bool {
	if !processAlive(pid) {
		return false
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.Contains(string(raw), "avalanchego")
}

// tail returns the last n lines of a file, or a note saying it could not be read.
func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")\n"
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}
