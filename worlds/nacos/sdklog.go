package nacos

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nacos-group/nacos-sdk-go/v2/common/logger"
)

// nacos-sdk-go's logger is global to the process, and every new client replaces it with a
// rolling file under that client's LogDir, which it recreates if the directory is gone (it
// would leave directories behind a removed temp dir). NewClient therefore installs sdkLogger
// right after creating each client: the SDK's warnings and errors go to the writer set with
// SetSDKLog (discarded by default), never to files of its own.
var sdkLog = struct {
	mu sync.Mutex
	w  io.Writer
}{w: io.Discard}

// SetSDKLog sends nacos-sdk-go's warnings and errors (from every client of the process) to w,
// one line each; nil discards them.
func SetSDKLog(w io.Writer) {
	if w == nil {
		w = io.Discard
	}
	sdkLog.mu.Lock()
	sdkLog.w = w
	sdkLog.mu.Unlock()
}

// quietSDK installs sdkLogger as the SDK's global logger.
func quietSDK() { logger.SetLogger(sdkLogger{}) }

// sdkLogger implements the SDK's logger.Logger: Warn and Error to sdkLog, the rest dropped.
type sdkLogger struct{}

func (sdkLogger) write(level, msg string) {
	sdkLog.mu.Lock()
	defer sdkLog.mu.Unlock()
	fmt.Fprintf(sdkLog.w, "%s %s %s\n", time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), level, msg)
}

func (l sdkLogger) Info(...interface{})                 {}
func (l sdkLogger) Debug(...interface{})                {}
func (l sdkLogger) Infof(string, ...interface{})        {}
func (l sdkLogger) Debugf(string, ...interface{})       {}
func (l sdkLogger) Warn(args ...interface{})            { l.write("WARN", fmt.Sprint(args...)) }
func (l sdkLogger) Error(args ...interface{})           { l.write("ERROR", fmt.Sprint(args...)) }
func (l sdkLogger) Warnf(f string, args ...interface{}) { l.write("WARN", fmt.Sprintf(f, args...)) }
func (l sdkLogger) Errorf(f string, args ...interface{}) {
	l.write("ERROR", fmt.Sprintf(f, args...))
}
