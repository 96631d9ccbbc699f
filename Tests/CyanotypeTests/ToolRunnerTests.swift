import Foundation
import Testing

/// The tests' process runner (`runToolOrThrow`): a tool's output comes back, and a failing
/// tool's exit status and standard error reach the test that ran it. Oracle: the shell.
@Suite struct ToolRunnerTests {
    @Test func aFailingToolThrowsWithItsStatusAndStandardError() throws {
        let sh = try #require(which("sh"), "no sh on the PATH")
        #expect(String(decoding: try runToolOrThrow(sh, ["-c", "printf out; echo noise >&2"]), as: UTF8.self) == "out")
        do {
            try runToolOrThrow(sh, ["-c", "echo boom >&2; exit 3"])
            Issue.record("a tool exiting with status 3 did not throw")
        } catch let failure as ToolFailure {
            #expect(failure.status == 3)
            #expect(failure.stderr == "boom")
            #expect(failure.description.contains("exited with status 3: boom"), "\(failure)")
        }
        #expect(throws: ToolFailure.self) { try runToolOrThrow("/nonexistent/cyanotype-tool", []) }
    }
}
