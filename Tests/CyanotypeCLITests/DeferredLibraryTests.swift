import Foundation
import Testing

/// FFmpeg, libheif, libjxl, libmicrohttpd, libcrypto and libzbar open on first use: a still-image job
/// never maps them (nor the hundred-odd libraries they pull in), and a job that needs one opens
/// that one. The dynamic loader itself says what it opened (`LD_DEBUG=files`, glibc).
@Suite struct DeferredLibraries {
    static let heavy = ["libavcodec", "libavformat", "libavutil", "libswscale", "libheif", "libjxl", "libmicrohttpd", "libcrypto", "libzbar"]

    /// Runs the tool with the loader's file log on; the heavy libraries it opened.
    func opened(_ w: Workspace, _ args: String...) throws -> (status: Int32, heavy: Set<String>) {
        let r = try Tool.run(args, in: w.dir, env: ["LD_DEBUG": "files"])
        var found = Set<String>()
        for line in r.stderr.split(separator: "\n") {
            guard let at = line.range(of: "file=") else { continue }
            let name = line[at.upperBound...].prefix { $0 != " " && $0 != "[" }
            let base = name.split(separator: "/").last.map(String.init) ?? ""
            for lib in Self.heavy where base.hasPrefix(lib + ".so") || base.hasPrefix(lib + "-") { found.insert(lib) }
        }
        return (r.status, found)
    }

    @Test func aStillImageJobOpensNoneOfThem() throws {
        let w = try Workspace()
        try w.image("a.png", 16, 16)
        let r = try opened(w, "apply", "a.png", "-o", "b.jpg", "--filter", "sepiaTone")
        #expect(r.status == 0)
        #expect(r.heavy.isEmpty, "opened \(r.heavy.sorted())")
        // The log is real: the same run does list the libraries every job needs.
        let all = try Tool.run(["--version"], in: w.dir, env: ["LD_DEBUG": "files"])
        #expect(all.stderr.contains("libturbojpeg"))
    }

    @Test func aHEIFFileOpensLibheifAndNoVideoLibrary() throws {
        let w = try Workspace()
        try w.image("a.heic", 16, 16)
        let r = try opened(w, "info", "a.heic")
        #expect(r.status == 0)
        #expect(r.heavy.contains("libheif"))
        #expect(!r.heavy.contains("libavcodec") && !r.heavy.contains("libjxl"), "opened \(r.heavy.sorted())")
    }

    @Test func aJPEGXLFileOpensLibjxl() throws {
        let w = try Workspace()
        try w.image("a.png", 16, 16)
        let r = try opened(w, "apply", "a.png", "-o", "b.jxl", "--lossless")
        #expect(r.status == 0)
        #expect(r.heavy.contains("libjxl"))
        #expect(!r.heavy.contains("libheif") && !r.heavy.contains("libavformat"), "opened \(r.heavy.sorted())")
    }
}

/// A deferred library that is there but broken is an error in the user's terms, never a stop:
/// the dynamic loader is pointed (LD_LIBRARY_PATH) at a stand-in `libheif.so.1` first.
@Suite struct BrokenDeferredLibraries {
    /// Runs `info a.heic` with `libheif.so.1` in a folder searched before the system's.
    func infoWithStandIn(_ write: (URL) throws -> Void) throws -> Tool.Result {
        let w = try Workspace()
        try w.image("a.heic", 16, 16)
        let folder = w.url("libs")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try write(folder.appendingPathComponent("libheif.so.1"))
        return try w.run("info", "a.heic", env: ["LD_LIBRARY_PATH": folder.path])
    }

    @Test func aFileThatIsNoLibraryIsATypedError() throws {
        let r = try infoWithStandIn { try Data("not a shared object\n".utf8).write(to: $0) }
        #expect(r.status == 1, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("libheif.so.1, which could not be loaded"), "stderr: \(r.stderr)")
        #expect(!r.stderr.contains("Aborted"))
    }

    @Test func aLibraryWithoutTheFunctionsIsATypedError() throws {
        let r = try infoWithStandIn { library in
            let source = library.deletingLastPathComponent().appendingPathComponent("empty.c")
            try Data("int cyanotype_stand_in = 1;\n".utf8).write(to: source)
            let cc = Process()
            cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            cc.arguments = ["clang", "-shared", "-fPIC", "-o", library.path, source.path]
            try cc.run()
            cc.waitUntilExit()
            try #require(cc.terminationStatus == 0, "clang could not build the stand-in library")
        }
        #expect(r.status == 1, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("which this version of it lacks"), "stderr: \(r.stderr)")
    }
}

/// The committed list of deferred functions and their forwarders are what the script makes
/// from the sources and the installed headers now.
@Suite struct DeferredForwardersAreFresh {
    @Test func theGeneratedFilesMatchTheScript() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", root.appendingPathComponent("scripts/generate-deferred-symbols.py").path, "--check"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(output)")
    }
}
