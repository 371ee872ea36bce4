package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tccompose "github.com/testcontainers/testcontainers-go/modules/compose"

	"github.com/resilcheck/resilcheck/internal/launch"
)

// Compose labels every container of a project with these.
const (
	projectLabel = "com.docker.compose.project"
	serviceLabel = "com.docker.compose.service"
	numberLabel  = "com.docker.compose.container-number"
)

// Stack is one compose project.
type Stack struct {
	Project string
	stack   *tccompose.DockerCompose
	docker  *testcontainers.DockerClient
}

// Open loads the compose files as project, interpolating variables from the
// process environment as docker compose does. The reaper (Ryuk) is switched
// off unless TESTCONTAINERS_RYUK_DISABLED says otherwise: its image would
// have to be pulled, and Down, or the helper's end of stdin, cleans up.
func Open(project string, files []string) (*Stack, error) {
	noReaper()
	dc, err := tccompose.NewDockerComposeWith(tccompose.WithStackFiles(files...), tccompose.StackIdentifier(project))
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	dc.WithOsEnv()
	docker, err := testcontainers.NewDockerClientWithOpts(context.Background())
	if err != nil {
		_ = dc.Close()
		return nil, fmt.Errorf("engine: docker client: %w", err)
	}
	return &Stack{Project: project, stack: dc, docker: docker}, nil
}

// noReaper switches testcontainers' reaper off unless the environment says
// otherwise. Testcontainers reads its configuration once, at its first
// client, so this comes before any.
func noReaper() {
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
}

// Up creates and starts every service, waiting until each container runs
// (healthy, where the compose file has a healthcheck), and checks that
// service is one of them. It returns the project's services, sorted.
func (s *Stack) Up(ctx context.Context, service string) ([]string, error) {
	if err := s.stack.Up(ctx, tccompose.Wait(true), tccompose.RemoveOrphans(true)); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	services := s.stack.Services()
	slices.Sort(services)
	if !slices.Contains(services, service) {
		return services, fmt.Errorf("engine: the compose project has no service %q (it has %s)", service, strings.Join(services, ", "))
	}
	return services, nil
}

// Down stops and removes the project's containers, networks and volumes.
func (s *Stack) Down(ctx context.Context) error {
	err := s.stack.Down(ctx, tccompose.RemoveOrphans(true), tccompose.RemoveVolumes(true))
	return errors.Join(err, s.stack.Close(), s.docker.Close())
}

// Logs returns the output of every container of the project, running or
// exited, the last launch.MaxLogBytes of each, named SERVICE-N.
func (s *Stack) Logs(ctx context.Context) ([]launch.Log, error) {
	list, err := s.docker.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", projectLabel+"="+s.Project),
	})
	if err != nil {
		return nil, fmt.Errorf("engine: listing containers: %w", err)
	}
	var logs []launch.Log
	var errs []error
	for _, c := range list.Items {
		name := c.Labels[serviceLabel] + "-" + c.Labels[numberLabel]
		out, err := s.containerLog(ctx, c.ID)
		if err != nil {
			errs = append(errs, fmt.Errorf("engine: log of %s: %w", name, err))
		}
		logs = append(logs, launch.Log{Name: name, Output: out})
	}
	slices.SortFunc(logs, func(a, b launch.Log) int { return strings.Compare(a.Name, b.Name) })
	return logs, errors.Join(errs...)
}

func (s *Stack) containerLog(ctx context.Context, id string) (string, error) {
	rc, err := s.docker.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Tail: logTailLines})
	if err != nil {
		return "", err
	}
	defer rc.Close()
	var raw bytes.Buffer
	if _, err := io.Copy(&raw, rc); err != nil {
		return "", err
	}
	// Without a TTY the engine multiplexes stdout and stderr in frames.
	var out lastBytes
	if _, err := stdcopy.StdCopy(&out, &out, bytes.NewReader(raw.Bytes())); err != nil {
		return raw.String(), nil // a TTY container: the stream is plain
	}
	return out.String(), nil
}

// logTailLines bounds what is read of a log before its last bytes are kept.
const logTailLines = "20000"

// lastBytes keeps the last launch.MaxLogBytes written to it.
type lastBytes struct {
	buf       []byte
	truncated bool
}

func (l *lastBytes) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if len(l.buf) > 2*launch.MaxLogBytes {
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-launch.MaxLogBytes:]...)
		l.truncated = true
	}
	return len(p), nil
}

func (l *lastBytes) String() string {
	if len(l.buf) <= launch.MaxLogBytes && !l.truncated {
		return string(l.buf)
	}
	return "[earlier output dropped]\n" + string(l.buf[len(l.buf)-min(len(l.buf), launch.MaxLogBytes):])
}
