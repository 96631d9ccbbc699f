import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the tool writes goes through here, with write(2): FileHandle.write and print
/// trap or stay silent on a closed pipe; this ends the command quietly instead (exit 141,
/// as a shell reports SIGPIPE), and never writes half a message to a full pipe.
package enum Console {
    /// Writes all of `bytes` to standard output; a reader that went away (EPIPE) ends the
    /// command with `.brokenPipe`.
    package static func out(_ bytes: Data) throws(CLIError) {
        if let failure = write(bytes, to: STDOUT_FILENO) {
            if failure == EPIPE { throw .brokenPipe }
            throw .failure("<stdout>: cannot write (\(String(cString: strerror(failure))))")
        }
    }

    /// `text` and a newline (`terminator`) to standard output.
    package static func print(_ text: String, terminator: String = "\n") throws(CLIError) {
        try out(Data((text + terminator).utf8))
    }

    /// Standard error: messages are best effort (a closed stderr is not worth failing for).
    package static func err(_ text: String) {
        _ = write(Data(text.utf8), to: STDERR_FILENO)
    }

    /// `cyanotype: warning: TEXT` on standard error, or into the list of `collectingWarnings`
    /// when one runs on this thread.
    package static func warn(_ text: String) {
        if let box = Thread.current.threadDictionary[warningsKey] as? WarningList {
            box.items.append(text)
            return
        }
        err("cyanotype: warning: \(text)\n")
    }

    /// Runs `body` with this thread's warnings kept instead of printed, and returns them
    /// (the server answers them with the request that caused them).
    package static func collectingWarnings<T>(_ body: () throws(CLIError) -> T) throws(CLIError) -> (value: T, warnings: [String]) {
        let box = WarningList()
        let previous = Thread.current.threadDictionary[warningsKey]
        Thread.current.threadDictionary[warningsKey] = box
        defer { Thread.current.threadDictionary[warningsKey] = previous }
        let value = try body()
        return (value, box.items)
    }

    private static let warningsKey = "cyanotype.console.warnings"
    private final class WarningList { var items: [String] = [] }

    /// `cyanotype: note: TEXT` on standard error.
    package static func note(_ text: String) { err("cyanotype: note: \(text)\n") }

    /// Writes every byte, retrying short writes and EINTR; the errno of a failure, else nil.
    private static func write(_ bytes: Data, to fd: Int32) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            guard var p = raw.baseAddress else { return nil }
            var left = raw.count
            while left > 0 {
                #if canImport(Glibc)
                let n = Glibc.write(fd, p, left)
                #elseif canImport(Musl)
                let n = Musl.write(fd, p, left)
                #else
                let n = Darwin.write(fd, p, left)
                #endif
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                p += n
                left -= n
            }
            return nil
        }
    }

    /// Makes sure descriptors 0, 1 and 2 are open (`cyanotype ... <&-`): a closed one is taken
    /// by /dev/null opened read-only, so the next file or socket the process opens cannot
    /// become "standard input" or "standard output" by accident; reading it gives nothing
    /// ("standard input is closed or empty") and writing to it fails (EBADF), as it would
    /// have. Call first thing.
    package static func reserveStandardDescriptors() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", O_RDONLY)
            if opened >= 0 && opened != fd {
                dup2(opened, fd)
                close(opened)
            }
        }
    }

    /// All of standard input (read with read(2): Foundation's errors name NSCocoaErrorDomain
    /// codes, not what went wrong). A closed or empty standard input is an error saying so,
    /// unless `allowEmpty` (a list of names may be empty).
    package static func readStandardInput(allowEmpty: Bool = false) throws(CLIError) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n > 0 {
                data.append(contentsOf: buffer[0..<n])
            } else if n == 0 {
                break
            } else if errno != EINTR {
                let failure = errno
                if failure == EBADF {
                    throw .failure("<stdin>: standard input is closed or empty, so '-' has nothing to read; give a file name or pipe the data in")
                }
                throw .failure("<stdin>: cannot read standard input (\(String(cString: strerror(failure))))")
            }
        }
        guard !data.isEmpty || allowEmpty else {
            throw .failure("<stdin>: standard input is closed or empty, so '-' has nothing to read; give a file name or pipe the data in")
        }
        return data
    }
}
