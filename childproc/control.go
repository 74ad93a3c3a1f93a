package childproc

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The control channel is a pair of pipes: the harness writes one command per
// line; the child answers one line per command: "ok <text>" or "err <text>".

func (c *Child) attachControl() error {
	inR, inW, err := os.Pipe() // harness → child
	if err != nil {
		return fmt.Errorf("control pipe: %w", err)
	}
	outR, outW, err := os.Pipe() // child → harness
	if err != nil {
		inR.Close()
		inW.Close()
		return fmt.Errorf("control pipe: %w", err)
	}
	c.cmd.ExtraFiles = append(c.cmd.ExtraFiles, inR, outW)
	n := 3 + len(c.cmd.ExtraFiles)
	c.cmd.Env = append(c.cmd.Env, envControlIn+"="+strconv.Itoa(n-2), envControlOut+"="+strconv.Itoa(n-1))
	c.ctlW, c.ctlR = inW, bufio.NewReader(outR)
	c.ctlFiles = []*os.File{inR, outW}
	c.ctlOwn = []*os.File{inW, outR}
	return nil
}

func (c *Child) afterStart() {
	for _, f := range c.ctlFiles {
		f.Close()
	}
	c.ctlFiles = nil
}

func (c *Child) closeControl() {
	for _, f := range append(c.ctlFiles, c.ctlOwn...) {
		f.Close()
	}
}

// AnswerError is a command the child answered with an error ("err <text>").
type AnswerError struct{ Child, Cmd, Text string }

// Error says which child answered which command with what.
func (e *AnswerError) Error() string { return fmt.Sprintf("%s control %q: %s", e.Child, e.Cmd, e.Text) }

// Control sends one command line to the child and returns its answer. It
// fails if the child has no control channel, has exited, answers "err" (an
// *AnswerError), or does not answer within timeout (a SIGSTOPped child
// cannot answer).
func (c *Child) Control(cmd string, timeout time.Duration) (string, error) {
	c.ctlMu.Lock()
	defer c.ctlMu.Unlock()
	if c.ctlW == nil {
		return "", fmt.Errorf("%s has no usable control channel", c.name)
	}
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		if _, err := fmt.Fprintln(c.ctlW, cmd); err != nil {
			ch <- answer{err: err}
			return
		}
		line, err := c.ctlR.ReadString('\n')
		ch <- answer{strings.TrimRight(line, "\n"), err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return "", fmt.Errorf("%s control %q: %w", c.name, cmd, a.err)
		}
		verb, text, _ := strings.Cut(a.line, " ")
		if verb != "ok" {
			return "", &AnswerError{Child: c.name, Cmd: cmd, Text: text}
		}
		return text, nil
	case <-time.After(timeout):
		// The reader goroutine stays blocked; a late answer would then be read
		// by the next command, so the channel is unusable from here on.
		c.ctlW = nil
		return "", fmt.Errorf("%s control %q: no answer within %s", c.name, cmd, timeout)
	}
}

// Serve runs the child side of the control channel: for each command line it
// calls handle and writes back "ok <answer>" or "err <error>". It returns when
// the harness closes the channel; without a channel it returns at once.
func Serve(handle func(cmd string) (string, error)) {
	inFD, err1 := strconv.Atoi(os.Getenv(envControlIn))
	outFD, err2 := strconv.Atoi(os.Getenv(envControlOut))
	if err1 != nil || err2 != nil {
		return
	}
	in := bufio.NewScanner(os.NewFile(uintptr(inFD), "control-in"))
	out := os.NewFile(uintptr(outFD), "control-out")
	for in.Scan() {
		ans, err := handle(in.Text())
		line := "ok " + oneLine(ans)
		if err != nil {
			line = "err " + oneLine(err.Error())
		}
		if _, err := fmt.Fprintln(out, line); err != nil {
			return
		}
	}
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
