import Cyanotype
import CyanotypeTool
import Foundation
import Instafilter

/// The server's limits and settings (`cyanotype serve` options).
package struct ServeOptions: Sendable {
    /// The folder images are served from.
    package var root = "."
    /// Renders at once; each uses every core through the context's executor.
    package var workers = 2
    /// Renders waiting for a worker before new ones get `503 busy`.
    package var queue = 16
    /// With a secret, `/render` needs `sig` (see `URLSigner`) and the page and the JSON API
    /// are off.
    package var key: String?
    /// The largest request body (an uploaded image), in bytes.
    package var maxBodyBytes = 64 << 20
    /// The largest result, in pixels.
    package var maxOutputPixels = 100_000_000
    /// The largest source decoded, in pixels.
    package var maxSourcePixels = 268_402_689
    /// The most filters in one chain.
    package var maxChain = 16
    /// Seconds a render may wait and run before it is answered `503 render_timeout`.
    package var renderTimeout = 60.0
    /// Memory for decoded preview sources, in bytes.
    package var previewCacheBytes = 256 << 20
    /// Where the page's files are (nil: beside the executable, else the source tree).
    package var pageFolder: String?
    /// The most memory one render may be estimated to need, in bytes (nil: no limit); the
    /// estimate is the render plan's (`CIContext.estimatedMemory(of:rect:)`).
    package var maxRenderMemory: Int? = ServeOptions.defaultRenderMemory(workers: 2)
    /// Seconds a client has to send a request's headers (from its connection, or from the
    /// end of its previous request) before the connection is dropped.
    package var headerTimeout = 10.0
    /// Seconds a client has to send a request's body once its headers are in.
    package var bodyTimeout = 60.0
    /// Connections one client address may hold open at once.
    package var maxConnectionsPerAddress = 64

    package init() {}

    /// The default memory per render: half the machine's memory shared by the workers, and
    /// at least 256 MiB.
    package static func defaultRenderMemory(workers: Int) -> Int {
        let half = Int(clamping: ProcessInfo.processInfo.physicalMemory / 2)
        return max(256 << 20, half / max(1, workers))
    }

    /// The limits every render request meets, whatever its route (`/render`, `/api/render`
    /// with filters, a recipe or an upload, `/api/explain`): the chain's length (filters
    /// plus recipe steps) and the result's size.
    package func check(_ p: RenderParameters) throws(ServeError) {
        guard p.chainLength <= maxChain else { throw .chainTooLong(limit: maxChain) }
        if let w = p.width, let h = p.height, w.multipliedReportingOverflow(by: h).partialValue > maxOutputPixels || w > 65_536 || h > 65_536 {
            throw .tooLarge("\(w)x\(h) is over the limit of \(maxOutputPixels) pixels")
        }
        if (p.width ?? 0) > 65_536 || (p.height ?? 0) > 65_536 { throw .tooLarge("a side over 65536 pixels") }
    }
}

/// The routes: the page, the catalogue, the folder's images, and renders (`/render`,
/// `/api/render`, `/api/explain`) in `cyanotype apply`'s vocabulary. It keeps no state
/// between requests beyond caches, so replicas behind a load balancer are interchangeable.
package final class RenderService: @unchecked Sendable {
    package let options: ServeOptions
    package let root: RootFolder
    package let queue: RenderQueue
    package let previews: PreviewCache
    let signer: URLSigner?
    package let page: PageFiles
    /// One context for every render (it is thread-safe); intermediates are not kept between
    /// renders, so memory stays with the workers.
    let context: CIContext
    /// How sources are read: the server's source-pixel limit, orientation applied.
    let reading: FileReading
    private let catalogue: Data

    package init(options: ServeOptions) throws(ServeError) {
        self.options = options
        root = try RootFolder(options.root)
        queue = RenderQueue(workers: options.workers, capacity: options.queue, memoryBudget: options.maxRenderMemory)
        previews = PreviewCache(budget: options.previewCacheBytes)
        signer = options.key.map(URLSigner.init(secret:))
        page = PageFiles(folder: options.pageFolder)
        reading = FileReading(pixelLimit: options.maxSourcePixels)
        context = CIContext(options: [.cacheIntermediates: false, .maximumRenderPixels: options.maxOutputPixels])
        let all = CIFilter.filterNames(inCategory: nil).compactMap { CIFilter.descriptor(forFilterName: $0) }.map(FilterJSON.description)
        catalogue = HTTPResponse.json(all).body
    }

    /// Answers one request (called on the connection's thread).
    package func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let path = request.path else { return ServeError.badRequest("the path has a malformed %-escape").response }
        let method = request.method
        func only(_ allowed: String...) -> ServeError? {
            allowed.contains(method) || (method == "HEAD" && allowed.contains("GET")) ? nil : .methodNotAllowed(allowed.joined(separator: " or "))
        }
        if signer != nil, !["/render", "/healthz", "/api/filters"].contains(path), !path.hasPrefix("/api/filters/") {
            return ServeError.signedOnly.response
        }
        switch path {
        case "/healthz":
            if let e = only("GET") { return e.response }
            let load = queue.load
            let cache = previews.statistics
            return .json(
                [
                    "status": "ok", "workers": queue.workers, "running": load.running, "waiting": load.waiting,
                    "cancelled": load.cancelled,
                    "previewCache": ["entries": cache.entries, "bytes": cache.bytes, "hits": cache.hits, "misses": cache.misses],
                ],
                headers: [("Cache-Control", "no-store")])
        case "/api/filters":
            if let e = only("GET") { return e.response }
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "public, max-age=3600")],
                body: catalogue)
        case "/api/images":
            if let e = only("GET") { return e.response }
            return .json(listing(), headers: [("Cache-Control", "no-cache")])
        case "/api/info":
            if let e = only("GET") { return e.response }
            return info(request)
        case "/render":
            if let e = only("GET") { return e.response }
            if let signer {
                do throws(ServeError) { try signer.verify(rawPath: request.rawPath, rawQuery: request.rawQuery) } catch { return error.response }
            }
            guard let items = request.query else { return ServeError.badRequest("the query has a malformed %-escape").response }
            do throws(ServeError) {
                return render(try RenderParameters.fromQuery(items), request: request, explain: false)
            } catch { return error.response }
        case "/api/render", "/api/explain":
            let explain = path == "/api/explain"
            let parameters: RenderParameters
            do throws(ServeError) {
                if method == "POST" {
                    guard Self.isJSON(request.headers["content-type"]) else { throw .unsupportedMediaType }
                    parameters = try RenderParameters.fromJSON(request.body)
                } else if explain && (method == "GET" || method == "HEAD") {
                    guard let items = request.query else { throw .badRequest("the query has a malformed %-escape") }
                    parameters = try RenderParameters.fromQuery(items)
                } else {
                    throw .methodNotAllowed(explain ? "GET or POST" : "POST")
                }
            } catch { return error.response }
            return render(parameters, request: request, explain: explain)
        default:
            if path.hasPrefix("/api/filters/") {
                if let e = only("GET") { return e.response }
                return describe(String(path.dropFirst("/api/filters/".count)))
            }
            if let e = only("GET") { return e.response }
            return page.response(for: path, ifNoneMatch: request.headers["if-none-match"])
        }
    }

    /// Whether a `Content-Type` names JSON (`application/json`, or a `+json` type), any
    /// parameters (`; charset=utf-8`) aside.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }

    // MARK: Catalogue and folder

    func describe(_ name: String) -> HTTPResponse {
        do throws(CLIError) {
            return .json(FilterJSON.description(try Names.filter(name)), headers: [("Cache-Control", "public, max-age=3600")])
        } catch {
            return ServeError(status: 404, code: "unknown_filter", message: error.description).response
        }
    }

    func listing() -> [String: Any] {
        [
            "images": root.files(extensions: Set(Files.imageExtensions)),
            "lutFiles": root.files(extensions: ["cube", "3dl"]),
            "looks": LUTConfiguration.shared.lookNames,
            "presets": FilterRegistry.names,
            "formats": Files.formatNames,
            "limits": [
                "maxChain": options.maxChain, "maxOutputPixels": options.maxOutputPixels, "maxBodyBytes": options.maxBodyBytes,
                "maxRenderMemoryBytes": options.maxRenderMemory ?? 0,
            ],
        ]
    }

    func info(_ request: HTTPRequest) -> HTTPResponse {
        do throws(ServeError) {
            guard let items = request.query, let name = items.first(where: { $0.name == "image" })?.value else {
                throw .badParameter("give ?image=NAME")
            }
            let file = try root.resolve(name)
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file.path)) } catch { throw .notFound("\(name): cannot read the file") }
            if CIRAWFilter.isRAWFile(data) { return try rawInfo(data, name: name) }
            let header: ImageFileHeader
            do { header = try ImageFileHeader(reading: data) } catch { throw .unreadable(Messages.reading(error, file: name)) }
            let turned = header.orientation >= 5 && header.orientation <= 8
            return .json(
                [
                    "image": name, "width": turned ? header.height : header.width, "height": turned ? header.width : header.height,
                    "format": header.format.rawValue, "bitDepth": header.bitDepth, "hasAlpha": header.hasAlpha,
                    "orientation": header.orientation, "bytes": data.count,
                ],
                headers: [("Cache-Control", "no-cache")])
        } catch { return error.response }
    }

    /// `/api/info` for a RAW camera file: the developed size (turned upright), not the
    /// TIFF thumbnail a DNG starts with.
    func rawInfo(_ data: Data, name: String) throws(ServeError) -> HTTPResponse {
        let filter: CIRAWFilter
        do { filter = try CIRAWFilter.open(data: data, name: name) } catch { throw .unreadable("\(name): \(error.description)") }
        let orientation = Int(filter.orientation.rawValue)
        let turned = orientation >= 5 && orientation <= 8
        let w = Int(filter.nativeSize.width), h = Int(filter.nativeSize.height)
        return .json(
            [
                "image": name, "width": turned ? h : w, "height": turned ? w : h, "format": "raw", "bitDepth": 16,
                "hasAlpha": false, "orientation": orientation, "bytes": data.count,
            ],
            headers: [("Cache-Control", "no-cache")])
    }

    // MARK: Renders

    /// A request checked and its recipe built, before any pixel is decoded.
    struct Prepared: @unchecked Sendable {
        enum Origin { case file(RootFile), upload(Data, hash: String), cachedUpload(hash: String) }
        let parameters: RenderParameters
        let origin: Origin
        /// The filters, LUT and preset, without the resize.
        let pipeline: Pipeline
        let recipe: FilterChain?
        /// The `--resize` of `w`/`h`.
        let resize: GeometryOptions
        /// Whether the chain gives the same picture on a smaller source (per-pixel, no
        /// positions or distances in pixels, no second image): the preview may then start
        /// from the cached small source.
        let scaleInvariant: Bool
        let warnings: [String]
        let etag: String

        var name: String {
            switch origin {
            case .file(let f): return f.name
            case .upload, .cachedUpload: return "upload"
            }
        }
        var identity: String {
            switch origin {
            case .file(let f): return f.identity
            case .upload(_, let hash), .cachedUpload(let hash): return "upload:" + hash
            }
        }
        var usesPreviewSource: Bool { parameters.preview && scaleInvariant && (parameters.width != nil || parameters.height != nil) }
    }

    func render(_ parameters: RenderParameters, request: HTTPRequest, explain: Bool) -> HTTPResponse {
        let prepared: Prepared
        do throws(ServeError) { prepared = try prepare(parameters) } catch { return error.response }
        let cacheControl = request.method == "POST" ? "no-store" : "public, max-age=3600"
        if !explain, let tags = request.headers["if-none-match"], Self.matches(tags, prepared.etag) {
            return HTTPResponse(status: 304, headers: [("ETag", prepared.etag), ("Cache-Control", cacheControl)])
        }
        var response = queue.run(timeout: options.renderTimeout) { [self] job in execute(prepared, explain: explain, job: job) }
        if response.status == 200 && !explain {
            response.headers += [("ETag", prepared.etag), ("Cache-Control", cacheControl)]
        }
        if !prepared.warnings.isEmpty {
            response.headers.append(("X-Cyanotype-Warnings", prepared.warnings.map(root.redact).joined(separator: " | ")))
        }
        if request.method == "HEAD" { response.body = Data() }
        return response
    }

    /// `If-None-Match` holds `etag` (or `*`).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains {
            let t = $0.trimmingCharacters(in: .whitespaces)
            return t == "*" || t == etag || t == "W/" + etag
        }
    }

    /// Checks the parameters and builds the recipe with the tool's own parsers (filter specs,
    /// LUTs, presets); files are resolved inside the root and identified by time and size.
    func prepare(_ p: RenderParameters) throws(ServeError) -> Prepared {
        guard let source = p.source else { throw .badParameter("give the image to render: image=NAME (a file under the served folder)") }
        try options.check(p)
        let origin: Prepared.Origin
        switch source {
        case .file(let name): origin = .file(try root.resolve(name))
        case .upload(let data): origin = .upload(data, hash: Digest.hex(Digest.sha256(data)))
        case .uploadHash(let hash): origin = .cachedUpload(hash: hash)
        }
        var files: [RootFile] = []
        var pipeline = Pipeline()
        pipeline.workingSpace = p.workingSpace
        var loaderError: ServeError?
        var invariant = true
        let built: (value: Void, warnings: [String])
        do throws(CLIError) {
            built = try Console.collectingWarnings { () throws(CLIError) in
                for text in p.filters {
                    let spec = try FilterSpec.parse(text)
                    do throws(CLIError) { _ = try Names.filter(spec.name) } catch {
                        loaderError = .unknownFilter(error.description)
                        throw error
                    }
                    let resolved = try ResolvedFilter(spec) { (name: String) throws(CLIError) -> CIImage in
                        do throws(ServeError) {
                            let f = try root.resolve(name)
                            files.append(f)
                            return try readFile(f)
                        } catch {
                            loaderError = error
                            throw CLIError.usage(error.message)
                        }
                    }
                    invariant = invariant && Self.isScaleInvariant(resolved)
                    pipeline.filters.append(resolved)
                }
                if let name = p.lut {
                    if !root.contains(name), let look = LUTFiles.lookName(name), let lut = LUTConfiguration.shared.look(named: look) {
                        pipeline.lut = lut
                    } else {
                        let f: RootFile
                        do throws(ServeError) { f = try root.resolve(name) } catch {
                            loaderError =
                                error.status == 404
                                ? ServeError(
                                    status: 404, code: "not_found",
                                    message: "\(name): no such LUT file under the served folder, and no built-in look has that name"
                                        + Suggest.hint(name, in: LUTConfiguration.shared.lookNames))
                                : error
                            throw CLIError.usage(error.message)
                        }
                        files.append(f)
                        pipeline.lut = try LUTFiles.read(f.path, layout: nil).lut
                    }
                }
                if let name = p.preset {
                    do throws(CLIError) { pipeline.preset = try Presets.make(name) } catch {
                        loaderError = ServeError(status: 400, code: "unknown_preset", message: error.description)
                        throw error
                    }
                    // Grain is drawn per pixel of the picture it lands on: not scale-invariant.
                    if let preset = pipeline.preset, preset.parameters.keys.contains(where: { $0 == "seed" || $0.hasPrefix("grain") }) {
                        invariant = false
                    }
                }
                if let x = p.intensity {
                    guard pipeline.preset != nil || pipeline.lut != nil else { throw CLIError.usage("intensity needs a preset or a lut") }
                    guard (0...1).contains(x) else { throw CLIError.usage("intensity must be from 0 to 1, got \(FilterJSON.number(x))") }
                    if let preset = pipeline.preset { preset.intensity = x } else { pipeline.lutIntensity = Float(x) }
                }
            }
        } catch {
            if let loaderError { throw ServeError(status: loaderError.status, code: loaderError.code, message: root.redact(loaderError.message)) }
            throw Self.failure(root.redact(error.description), usage: error.exitCode == 2)
        }
        var recipe: FilterChain?
        if let data = p.recipe {
            do { recipe = try FilterChain(recipeJSON: data) } catch {
                throw ServeError(status: 400, code: "bad_recipe", message: error.description)
            }
            invariant = false
        }
        var resize = GeometryOptions()
        if p.width != nil || p.height != nil { resize.resize = ResizeSpec(mode: .fit, width: p.width, height: p.height) }
        let partial = Prepared(
            parameters: p, origin: origin, pipeline: pipeline, recipe: recipe, resize: resize, scaleInvariant: invariant,
            warnings: built.warnings, etag: "")
        var key = "cyanotype-serve/1\n" + p.canonical + "\n" + partial.identity
        for f in files { key += "\n" + f.identity }
        let etag = "\"" + String(Digest.hex(Digest.sha256(Data(key.utf8))).prefix(32)) + "\""
        return Prepared(
            parameters: p, origin: origin, pipeline: pipeline, recipe: recipe, resize: resize, scaleInvariant: invariant,
            warnings: built.warnings, etag: etag)
    }

    /// Per-pixel filters (as the descriptor declares: pointwise, in place, reading a picture)
    /// with no input measured in pixels and no second image.
    static func isScaleInvariant(_ f: ResolvedFilter) -> Bool {
        let d = f.descriptor
        guard d.takesImage, d.reach == .pointwise, d.geometry == .inPlace else { return false }
        for input in d.inputs {
            if input.className == "CIImage" && input.key != kCIInputImageKey { return false }
            if let t = input.attributeType,
                [
                    kCIAttributeTypePosition, kCIAttributeTypePosition3, kCIAttributeTypeDistance,
                    kCIAttributeTypeRectangle,
                ].contains(t)
            {
                return false
            }
        }
        return true
    }

    /// A file under the root, read as the tool reads it (upright); messages name it as the
    /// client did.
    func readFile(_ f: RootFile) throws(ServeError) -> CIImage {
        do {
            return try CIImage.read(contentsOf: URL(fileURLWithPath: f.path), options: reading.readOptions)
        } catch {
            if case .codec(_, let e) = error {
                if case .tooLarge = e { throw .tooLarge(Messages.reading(e, file: f.name)) }
                if case .ioError = e { throw .notFound(Messages.reading(e, file: f.name)) }
                throw .unreadable(Messages.reading(e, file: f.name))
            }
            throw .unreadable("\(f.name): \(error.description)")
        }
    }

    /// A tool error as an answer: the command line's mistakes are the client's (400), a
    /// limit is `too_large`, a file that does not decode is `unreadable_image`.
    static func failure(_ message: String, usage: Bool = false) -> ServeError {
        if usage { return .badValue(message) }
        // The engine's own refusals (CIRenderError.overMemoryBudget, .cancelled).
        if message.contains("over the memory budget") { return ServeError(status: 413, code: "render_too_large", message: message) }
        if message.contains("the render was cancelled") { return ServeError(status: 503, code: "render_timeout", message: message, retryAfter: 5) }
        if message.contains("above the limit") { return .tooLarge(message) }
        for sign in ["not an image", "damaged", "truncated", "empty", "cannot read"] where message.contains(sign) { return .unreadable(message) }
        return .renderFailed(message)
    }

    static func failure(_ e: CLIError) -> ServeError { failure(e.description, usage: e.exitCode == 2) }

    /// Runs on a render worker: decode (or take the cached small source), filter, encode, on
    /// the context bound to the request's `job` (cancelled at its deadline; its memory
    /// budget refuses a plan estimated over it before anything renders).
    func execute(_ prepared: Prepared, explain: Bool, job: CIRenderJob) -> HTTPResponse {
        let started = DispatchTime.now()
        let context = self.context.forJob(job)
        do throws(ServeError) {
            let p = prepared.parameters
            var image: CIImage
            var facts: SourceFacts
            var sourceSize: (Int, Int)
            var mode: String? = nil
            if prepared.usesPreviewSource {
                let preview = try previewSource(prepared, context: context)
                image = preview.image
                facts = SourceFacts(properties: preview.properties)
                sourceSize = (preview.sourceWidth, preview.sourceHeight)
                mode = "fast"
            } else {
                let source: CIImage
                switch prepared.origin {
                case .file(let f): source = try readFile(f)
                case .upload(let data, _):
                    do { source = try CIImage.read(data: data, options: reading.readOptions, name: "upload") } catch {
                        if case .codec(_, let e) = error { throw Self.failure(Messages.reading(e, file: "upload")) }
                        throw .unreadable("upload: \(error.description)")
                    }
                case .cachedUpload: throw .uploadNeeded
                }
                image = source
                facts = SourceFacts(properties: source.properties)
                sourceSize = (PixelSize(source.extent).width, PixelSize(source.extent).height)
                if p.preview { mode = "exact" }
            }
            do throws(CLIError) {
                image = try prepared.pipeline.run(on: image)
                if let recipe = prepared.recipe { image = recipe.apply(to: image) }
                if !prepared.usesPreviewSource { image = try prepared.resize.applyAfterFilters(image) }
            } catch {
                throw Self.failure(root.redact(error.description), usage: error.exitCode == 2)
            }
            guard !image.extent.isInfinite else { throw .renderFailed("the result has no edges (an infinite image)") }
            guard !image.extent.isEmpty else { throw .renderFailed("the result is empty") }
            let size = PixelSize(image.extent)
            guard size.width.multipliedReportingOverflow(by: size.height).partialValue <= options.maxOutputPixels else {
                throw .tooLarge("the result would be \(size.width)x\(size.height) pixels, over the limit of \(options.maxOutputPixels)")
            }
            let memory = context.estimatedMemory(of: image)
            if explain {
                let space = OutputOptions().metadata.colorSpace(for: facts.properties, format: p.format)
                let plan = context.explain(image, format: .RGBA8, colorSpace: space, premultiplied: false)
                var o: [String: Any] = [
                    "plan": root.redact(plan), "width": size.width, "height": size.height,
                    "sourceWidth": sourceSize.0, "sourceHeight": sourceSize.1, "warnings": prepared.warnings,
                    "estimatedMemoryBytes": memory, "maxRenderMemoryBytes": options.maxRenderMemory ?? 0,
                ]
                if let mode { o["preview"] = mode }
                return .json(o, headers: [("Cache-Control", "no-store")])
            }
            // Refused before any tile runs (the engine checks its own plan against the job's
            // budget too).
            if let limit = options.maxRenderMemory, memory > limit { throw .renderTooLarge(estimated: memory, limit: limit) }
            var output = OutputOptions()
            output.format = p.format
            output.quality = p.quality
            let data: Data
            do throws(CLIError) {
                data = try ImageWriter.encode(
                    image, source: facts, format: p.format, options: output, uncovers: prepared.pipeline.uncovers,
                    keepsEdgesClear: false, context: context, input: prepared.name, output: "the result")
            } catch {
                throw Self.failure(root.redact(error.description), usage: error.exitCode == 2)
            }
            let ms = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
            var headers: [(name: String, value: String)] = [
                ("Content-Type", Self.contentType(p.format)),
                ("X-Render-Ms", String(format: "%.1f", ms)),
                ("Server-Timing", String(format: "render;dur=%.1f", ms)),
                ("X-Image-Size", "\(size.width)x\(size.height)"),
                ("X-Source-Size", "\(sourceSize.0)x\(sourceSize.1)"),
            ]
            if let mode { headers.append(("X-Preview", mode)) }
            return HTTPResponse(status: 200, headers: headers, body: data)
        } catch {
            return error.response
        }
    }

    /// The cached small source of a preview, made on a miss.
    func previewSource(_ prepared: Prepared, context: CIContext) throws(ServeError) -> PreviewSource {
        let p = prepared.parameters
        let key = prepared.identity + "|\(p.width ?? 0)x\(p.height ?? 0)"
        if let hit = previews.get(key) { return hit }
        let data: Data
        switch prepared.origin {
        case .file(let f):
            do { data = try Data(contentsOf: URL(fileURLWithPath: f.path)) } catch { throw .notFound("\(f.name): cannot read the file") }
        case .upload(let d, _): data = d
        case .cachedUpload: throw .uploadNeeded
        }
        let made = try PreviewMaker.make(data, name: prepared.name, width: p.width, height: p.height, reading: reading, context: context)
        previews.put(key, made)
        return made
    }

    static func contentType(_ f: ImageFileFormat) -> String {
        switch f {
        case .png: return "image/png"
        case .jpeg: return "image/jpeg"
        case .webp: return "image/webp"
        case .gif: return "image/gif"
        case .avif: return "image/avif"
        case .heif: return "image/heic"
        case .tiff: return "image/tiff"
        case .jxl: return "image/jxl"
        }
    }
}
