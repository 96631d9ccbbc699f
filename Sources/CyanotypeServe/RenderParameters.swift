import Cyanotype
import CyanotypeTool
import Foundation

/// What one render asks for, in `cyanotype apply`'s vocabulary: the image, the filter specs
/// in order, a LUT, a preset, the intensity, a size to fit and the output format. Read from
/// a `/render` query string or from the JSON of `POST /api/render`.
package struct RenderParameters: Sendable, Equatable {
    /// Where the pixels come from.
    package enum Source: Sendable, Equatable {
        /// A file under the root, by relative name.
        case file(String)
        /// Image bytes sent in the request (a picture dropped on the page).
        case upload(Data)
        /// An upload sent before, by the hex SHA-256 of its bytes (served from the preview
        /// cache, else refused with `upload_needed`).
        case uploadHash(String)
    }

    package var source: Source?
    /// `--filter` specs, in order (`sepiaTone intensity=0.8`).
    package var filters: [String] = []
    /// `--lut`: a `.cube`/`.3dl`/LUT image under the root, or a built-in look name.
    package var lut: String?
    /// `--preset`: a named look.
    package var preset: String?
    /// `--intensity`: of the preset when there is one, else of the LUT.
    package var intensity: Double?
    /// `--resize WxH` (fit inside; `w` or `h` alone keeps the aspect ratio).
    package var width: Int?
    package var height: Int?
    package var format: ImageFileFormat = .png
    /// `--quality` for lossy formats, 0...100.
    package var quality: Int?
    /// `--working-space`: what the filters compute on (linear light or sRGB-encoded values).
    package var workingSpace: WorkingSpace = .linear
    /// Render the chain on the source scaled to the requested size first (the page's live
    /// preview), where the chain allows it; see `RenderService`.
    package var preview = false
    /// An Instafilter recipe (`{"version": 1, "steps": [...]}`) applied after the rest
    /// (JSON form only).
    package var recipe: Data?
    /// The number of steps in `recipe` (counted with the filters against the chain limit).
    package var recipeSteps = 0

    package init() {}

    /// Filters the request chains: the filter specs and the recipe's steps.
    package var chainLength: Int { filters.count + recipeSteps }

    /// The query parameters `/render` and `/api/explain` accept.
    package static let queryNames: Set<String> = ["image", "filter", "lut", "preset", "intensity", "w", "h", "format", "q", "preview", "working-space", "sig"]

    /// Reads a query string's parameters (already decoded).
    package static func fromQuery(_ items: [(name: String, value: String)]) throws(ServeError) -> RenderParameters {
        var p = RenderParameters()
        var seen = Set<String>()
        for (name, value) in items {
            guard queryNames.contains(name) else {
                throw .badParameter(
                    "unknown parameter '\(name)'" + Suggest.hint(name, in: queryNames.sorted())
                        + "; /render takes image, filter, lut, preset, intensity, w, h, format, q, preview, working-space (and sig)")
            }
            if name != "filter" {
                guard !seen.contains(name) else { throw .badParameter("'\(name)' is given more than once") }
                seen.insert(name)
            }
            switch name {
            case "image": p.source = .file(value)
            case "filter": p.filters.append(value)
            case "lut": p.lut = value
            case "preset": p.preset = value
            case "intensity": p.intensity = try number(value, name: "intensity")
            case "w": p.width = try side(value, name: "w")
            case "h": p.height = try side(value, name: "h")
            case "format": p.format = try format(value)
            case "q": p.quality = try quality(value)
            case "preview": p.preview = try flag(value, name: "preview")
            case "working-space": p.workingSpace = try workingSpace(value, name: "working-space")
            default: break
            }
        }
        return p
    }

    /// Reads the JSON form: `{"image": "photo.jpg", "filters": ["sepiaTone intensity=0.8"],
    /// "lut": null, "preset": null, "intensity": null, "width": 800, "format": "png"}`;
    /// `image` may instead be `{"data": BASE64}` (an upload) or `{"sha256": HEX}`.
    package static func fromJSON(_ body: Data) throws(ServeError) -> RenderParameters {
        guard !body.isEmpty else { throw .malformedJSON("the request body is empty; send a JSON object") }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: body, options: []) } catch {
            throw .malformedJSON("the request body is not valid JSON")
        }
        guard let o = object as? [String: Any] else { throw .malformedJSON("the request body must be a JSON object") }
        let known: Set<String> = ["image", "filters", "lut", "preset", "intensity", "width", "height", "format", "quality", "preview", "recipe", "workingSpace"]
        for key in o.keys.sorted() where !known.contains(key) {
            throw .badParameter(
                "unknown field '\(key)'" + Suggest.hint(key, in: known.sorted())
                    + "; fields are " + known.sorted().joined(separator: ", "))
        }
        var p = RenderParameters()
        switch o["image"] {
        case nil, is NSNull: break
        case let name as String: p.source = .file(name)
        case let upload as [String: Any]:
            if let text = upload["data"] as? String {
                guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !data.isEmpty else {
                    throw .badParameter("image.data must be the image's bytes in base64")
                }
                p.source = .upload(data)
            } else if let hash = upload["sha256"] as? String, hash.count == 64, Digest.bytes(fromHex: hash) != nil {
                p.source = .uploadHash(hash.lowercased())
            } else {
                throw .badParameter("image must be a file name, {\"data\": BASE64} or {\"sha256\": HEX}")
            }
        default: throw .badParameter("image must be a file name, {\"data\": BASE64} or {\"sha256\": HEX}")
        }
        switch o["filters"] {
        case nil, is NSNull: break
        case let list as [Any]:
            for item in list {
                guard let spec = item as? String else { throw .badParameter("filters must be an array of filter specs (strings)") }
                p.filters.append(spec)
            }
        default: throw .badParameter("filters must be an array of filter specs (strings)")
        }
        p.lut = try string(o["lut"], name: "lut")
        p.preset = try string(o["preset"], name: "preset")
        if let v = o["intensity"], !(v is NSNull) { p.intensity = try jsonNumber(v, name: "intensity") }
        if let v = o["width"], !(v is NSNull) { p.width = try side(jsonNumber(v, name: "width"), name: "width") }
        if let v = o["height"], !(v is NSNull) { p.height = try side(jsonNumber(v, name: "height"), name: "height") }
        if let f = try string(o["format"], name: "format") { p.format = try format(f) }
        if let v = o["quality"], !(v is NSNull) {
            let q = try jsonNumber(v, name: "quality")
            p.quality = try quality(q == q.rounded() ? String(Int(q)) : String(q))
        }
        if let w = try string(o["workingSpace"], name: "workingSpace") { p.workingSpace = try workingSpace(w, name: "workingSpace") }
        switch o["preview"] {
        case nil, is NSNull: break
        case let b as NSNumber where isBool(b): p.preview = b.boolValue
        default: throw .badParameter("preview must be true or false")
        }
        switch o["recipe"] {
        case nil, is NSNull: break
        case let r as [String: Any]:
            p.recipe = try? JSONSerialization.data(withJSONObject: r)
            p.recipeSteps = (r["steps"] as? [Any])?.count ?? 0
        default: throw .badParameter("recipe must be an Instafilter recipe object ({\"version\": 1, \"steps\": [...]})")
        }
        return p
    }

    /// The parameters as one line, for ETags: everything that changes the output.
    package var canonical: String {
        var parts = filters.map { "filter=" + $0 }
        if let lut { parts.append("lut=" + lut) }
        if let preset { parts.append("preset=" + preset) }
        if let intensity { parts.append("intensity=\(intensity)") }
        if let width { parts.append("w=\(width)") }
        if let height { parts.append("h=\(height)") }
        parts.append("format=" + format.rawValue)
        if let quality { parts.append("q=\(quality)") }
        if preview { parts.append("preview=1") }
        if workingSpace != .linear { parts.append("working-space=" + workingSpace.rawValue) }
        if let recipe { parts.append("recipe=" + Digest.hex(Digest.sha256(recipe))) }
        return parts.joined(separator: "\u{1}")
    }

    // MARK: Values

    /// `linear` or `srgb`, as `--working-space` takes them.
    static func workingSpace(_ text: String, name: String) throws(ServeError) -> WorkingSpace {
        do throws(CLIError) { return try WorkingSpace.parse(text, option: name) } catch { throw .badParameter(error.description) }
    }

    static func number(_ text: String, name: String) throws(ServeError) -> Double {
        guard let d = Double(text.trimmingCharacters(in: .whitespaces)), d.isFinite else {
            throw .badParameter("\(name) must be a finite number, got '\(text)'")
        }
        return d
    }

    static func jsonNumber(_ value: Any, name: String) throws(ServeError) -> Double {
        guard let n = value as? NSNumber, !isBool(value) else { throw .badParameter("\(name) must be a number") }
        let d = n.doubleValue
        guard d.isFinite else { throw .badParameter("\(name) must be a finite number") }
        return d
    }

    /// JSON's true and false (Foundation hands them over as NSNumbers of type char).
    static func isBool(_ value: Any) -> Bool {
        guard let n = value as? NSNumber else { return false }
        return String(cString: n.objCType) == "c"
    }

    static func side(_ text: String, name: String) throws(ServeError) -> Int {
        guard let n = Int(text), n >= 1 else { throw .badParameter("\(name) must be a whole number of pixels, 1 or more, got '\(text)'") }
        return n
    }

    static func side(_ value: Double, name: String) throws(ServeError) -> Int {
        guard value == value.rounded(), value >= 1, value < 1e9 else {
            throw .badParameter("\(name) must be a whole number of pixels, 1 or more")
        }
        return Int(value)
    }

    static func format(_ text: String) throws(ServeError) -> ImageFileFormat {
        guard let f = Files.format(named: text.lowercased()) else {
            throw .badParameter("format must be \(Files.formatList), got '\(text)'" + Suggest.hint(text, in: Files.formatNames))
        }
        return f
    }

    static func quality(_ text: String) throws(ServeError) -> Int {
        guard let q = Int(text), (0...100).contains(q) else { throw .badParameter("q (quality) must be a whole number from 0 to 100, got '\(text)'") }
        return q
    }

    static func flag(_ text: String, name: String) throws(ServeError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "": return true
        case "0", "false", "no": return false
        default: throw .badParameter("\(name) must be 1 or 0, got '\(text)'")
        }
    }

    static func string(_ value: Any?, name: String) throws(ServeError) -> String? {
        switch value {
        case nil, is NSNull: return nil
        case let s as String: return s
        default: throw .badParameter("\(name) must be a string or null")
        }
    }
}
