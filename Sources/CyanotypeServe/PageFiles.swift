import Foundation

/// The Fun House page: static HTML, CSS and JavaScript shipped with the package (the
/// target's `Page` resources), read once at start. Looked for in `--page DIR`, then in the
/// resource bundle beside the executable (`Cyanotype_CyanotypeServe.resources/Page`, where
/// SwiftPM puts it, and where an install copies it), then in the source tree.
package struct PageFiles: Sendable {
    /// Where the files were found (nil: nowhere; the page answers 500, the API works).
    package let folder: String?
    private let files: [String: (type: String, body: Data, etag: String)]

    package init(folder: String?) {
        var candidates: [String] = []
        if let folder { candidates.append(folder) }
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        for base in [Bundle.main.bundleURL, exe] {
            candidates.append(base.appendingPathComponent("Cyanotype_CyanotypeServe.resources/Page").path)
        }
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Page").path)
        let found = candidates.first { FileManager.default.fileExists(atPath: $0 + "/index.html") }
        self.folder = found
        var files: [String: (String, Data, String)] = [:]
        if let found, let names = try? FileManager.default.contentsOfDirectory(atPath: found) {
            for name in names where Self.isPlainName(name) {
                guard let data = FileManager.default.contents(atPath: found + "/" + name) else { continue }
                let etag = "\"" + String(Digest.hex(Digest.sha256(data)).prefix(24)) + "\""
                files[name] = (Self.type(of: name), data, etag)
            }
        }
        self.files = files
    }

    /// `/` is `index.html`; `/page/NAME` is a file of the page.
    package func response(for path: String, ifNoneMatch: String?) -> HTTPResponse {
        let name: String
        if path == "/" || path == "/index.html" {
            name = "index.html"
        } else if path.hasPrefix("/page/") {
            name = String(path.dropFirst("/page/".count))
        } else {
            return ServeError.notFound("\(path): no such page or API (see /api/filters, /render, /api/render)").response
        }
        guard folder != nil else {
            return ServeError(
                status: 500, code: "page_missing",
                message: "the page's files were not installed next to the executable (Cyanotype_CyanotypeServe.resources); pass --page DIR"
            ).response
        }
        guard Self.isPlainName(name), let file = files[name] else { return ServeError.notFound("\(path): no such file").response }
        if let tags = ifNoneMatch, RenderService.matches(tags, file.etag) {
            return HTTPResponse(status: 304, headers: [("ETag", file.etag), ("Cache-Control", "no-cache")])
        }
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", file.type), ("ETag", file.etag), ("Cache-Control", "no-cache"),
                ("X-Content-Type-Options", "nosniff"),
            ],
            body: file.body)
    }

    static func isPlainName(_ s: String) -> Bool {
        !s.isEmpty && !s.hasPrefix(".") && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }
    }

    static func type(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "json": return "application/json"
        default: return "application/octet-stream"
        }
    }
}
