import CText
import Foundation

// The process-wide font machinery behind the text filters: fontconfig (fonts by name, and by the
// characters they cover for fallback), the faces opened so far, and each face's glyph bitmaps.
//
// Thread safety. fontconfig and the FreeType library object are used only under
// `FontLibrary.lock`; a FreeType face (not thread-safe) only under its `FontFace.lock`. The two
// locks are never held together. A face's HarfBuzz font is made immutable when opened, and
// HarfBuzz allows immutable fonts to shape on any number of threads at once, so shaping takes
// no lock. Faces are opened once and kept for the life of the process.

/// A glyph drawn by FreeType: 8-bit coverage, top row first, placed relative to the pen.
struct GlyphBitmap: Sendable {
    /// Columns and rows of `coverage`.
    let width: Int, height: Int
    /// Pixels from the pen to the bitmap's left column, and from the baseline up to its top row.
    let left: Int, top: Int
    let coverage: [UInt8]

    static let empty = GlyphBitmap(width: 0, height: 0, left: 0, top: 0, coverage: [])
}

/// One face of a font file: HarfBuzz's font for shaping and FreeType's face for drawing.
final class FontFace: @unchecked Sendable, Hashable {
    let path: String
    let index: Int
    /// The face's first family name (for tests and `explain`).
    let family: String
    let unitsPerEm: Double
    /// From the font's horizontal header, in font units: above the baseline, below it
    /// (positive), and the gap between lines.
    let ascender: Double, descender: Double, lineGap: Double
    /// Immutable: shapes on any thread.
    let hbFont: OpaquePointer

    private let lock = NSLock()
    private let ftFace: FT_Face
    private var glyphs: [GlyphKey: GlyphBitmap] = [:]
    private var cachedBytes = 0
    private var currentPixels: FT_F26Dot6 = 0

    private struct GlyphKey: Hashable {
        let glyph: UInt32
        /// Size in 1/64 pixel, and the horizontal phase in quarter pixels.
        let size: Int, phase: Int
    }

    /// Glyph bitmaps kept per face before the cache starts over.
    private static let cacheBudget = 64 << 20

    fileprivate init?(library: FT_Library, path: String, index: Int) {
        var face: FT_Face?
        guard FT_New_Face(library, path, FT_Long(index), &face) == 0, let face else { return nil }
        guard face.pointee.units_per_EM > 0,
            let blob = hb_blob_create_from_file_or_fail(path)
        else {
            FT_Done_Face(face)
            return nil
        }
        let hbFace = hb_face_create(blob, UInt32(index))
        hb_blob_destroy(blob)
        guard let hbFace, let font = hb_font_create(hbFace) else {
            FT_Done_Face(face)
            return nil
        }
        hb_face_destroy(hbFace)
        let upem = Int32(face.pointee.units_per_EM)
        hb_font_set_scale(font, upem, upem)  // positions in font units, scaled by us
        hb_ot_font_set_funcs(font)
        hb_font_make_immutable(font)
        self.path = path
        self.index = index
        self.ftFace = face
        self.hbFont = font
        family = face.pointee.family_name.map { String(cString: $0) } ?? URL(fileURLWithPath: path).lastPathComponent
        unitsPerEm = Double(upem)
        ascender = Double(face.pointee.ascender)
        descender = -Double(face.pointee.descender)
        lineGap = max(0, Double(face.pointee.height) - ascender - descender)
    }

    /// The face's glyph for a character, nil when the font lacks it.
    func glyph(for scalar: UInt32) -> UInt32? {
        var g: hb_codepoint_t = 0
        return hb_font_get_nominal_glyph(hbFont, scalar, &g) != 0 && g != 0 ? g : nil
    }

    /// The glyph drawn unhinted with anti-aliasing at `pixels` per em, its outline shifted
    /// right by `phase` quarter pixels (subpixel positioning), cached.
    func bitmap(glyph: UInt32, pixels: Double, phase: Int) -> GlyphBitmap {
        let key = GlyphKey(glyph: glyph, size: Int((pixels * 64).rounded()), phase: phase)
        lock.lock()
        defer { lock.unlock() }
        if let b = glyphs[key] { return b }
        let b = draw(key)
        if cachedBytes + b.coverage.count > Self.cacheBudget {
            glyphs.removeAll(keepingCapacity: true)
            cachedBytes = 0
        }
        glyphs[key] = b
        cachedBytes += b.coverage.count + 64
        return b
    }

    /// Under `lock`. FreeType rounds a TrueType face's pixels per em to a whole number, so the
    /// face is set to a whole size and a transform scales the outline to the exact one.
    private func draw(_ key: GlyphKey) -> GlyphBitmap {
        guard key.size > 0 else { return .empty }
        let whole = max(64, (key.size + 32) & ~63)
        if currentPixels != FT_F26Dot6(whole) {
            guard FT_Set_Char_Size(ftFace, 0, FT_F26Dot6(whole), 72, 72) == 0 else { return .empty }
            currentPixels = FT_F26Dot6(whole)
        }
        let scale = FT_Fixed((Double(key.size) / Double(whole) * 65536).rounded())
        var matrix = FT_Matrix(xx: scale, xy: 0, yx: 0, yy: scale)
        var delta = FT_Vector(x: FT_Pos(key.phase * 16), y: 0)
        FT_Set_Transform(ftFace, &matrix, &delta)
        guard FT_Load_Glyph(ftFace, key.glyph, SHIM_FT_LOAD_RENDER_UNHINTED) == 0, let slot = ftFace.pointee.glyph else { return .empty }
        let bm = slot.pointee.bitmap
        let w = Int(bm.width), h = Int(bm.rows), pitch = Int(bm.pitch)
        guard w > 0, h > 0, let buffer = bm.buffer else { return .empty }
        var coverage = [UInt8](repeating: 0, count: w * h)
        let mono = bm.pixel_mode == UInt8(FT_PIXEL_MODE_MONO.rawValue)
        guard mono || bm.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) else { return .empty }
        coverage.withUnsafeMutableBufferPointer { out in
            for r in 0..<h {
                let src = buffer + r * pitch
                for c in 0..<w {
                    out[r * w + c] = mono ? ((src[c >> 3] >> (7 - UInt8(c & 7))) & 1) * 255 : src[c]
                }
            }
        }
        return GlyphBitmap(width: w, height: h, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top), coverage: coverage)
    }

    static func == (l: FontFace, r: FontFace) -> Bool { l === r }
    func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
}

/// Why text cannot be drawn.
enum TextError: Error, CustomStringConvertible {
    case noFonts
    /// The text's image would be wider or taller than an image can be.
    case tooLarge(width: Double, height: Double)
    /// The text's glyph bitmaps would take more than `budget` bytes.
    case glyphsTooLarge(budget: Int)

    var description: String {
        switch self {
        case .noFonts:
            return "no usable font is installed (fontconfig found none); install one, e.g. `apt-get install fonts-dejavu-core`"
        case let .tooLarge(w, h):
            let size = abs(w) < 1e18 && abs(h) < 1e18 ? String(format: "%.0fx%.0f pixels", w, h) : "unbounded"
            return "the text's image would be \(size); an image is at most \(PixelRect.limit) pixels on a side"
        case let .glyphsTooLarge(budget):
            return "the text's glyphs would take more than \(budget >> 20) MB at this size; use a smaller font size or scale factor"
        }
    }
}

/// The fonts of this machine, as fontconfig knows them, opened on demand and kept.
final class FontLibrary: @unchecked Sendable {
    static let shared = FontLibrary()

    private let lock = NSLock()
    private var started = false
    private var library: FT_Library?
    private var config: OpaquePointer?
    private var faces: [String: FontFace] = [:]
    private var byName: [String: FontFace] = [:]
    /// Per primary face: fontconfig's fonts in order of preference, for fallback.
    private var fallbackSets: [FontFace: UnsafeMutablePointer<FcFontSet>] = [:]
    private var fallbacks: [FallbackKey: FontFace?] = [:]
    private var defaultFamily: String?

    private struct FallbackKey: Hashable {
        let primary: FontFace
        let scalar: UInt32
    }

    /// Names and fallbacks remembered before the caches start over (faces are kept: there
    /// are only as many as installed fonts).
    private static let cacheEntries = 4096

    private init() {}

    /// The face a font name stands for (see `NSFont`): a PostScript or full name, a family
    /// with an optional style ("Helvetica-Bold"), a name fontconfig has an alias for, else the
    /// default sans-serif font.
    func face(named name: String) throws(TextError) -> FontFace {
        lock.lock()
        defer { lock.unlock() }
        if let f = byName[name] { return f }
        try start()
        guard let f = resolve(name) else { throw .noFonts }
        if byName.count >= Self.cacheEntries { byName.removeAll() }  // names come from users
        byName[name] = f
        return f
    }

    /// A face that has `scalar`, for text whose own face lacks it: the first font covering it in
    /// fontconfig's order of preference for the primary face (similar families first); nil
    /// when no installed font has it.
    func fallback(for scalar: UInt32, after primary: FontFace) -> FontFace? {
        lock.lock()
        defer { lock.unlock() }
        let key = FallbackKey(primary: primary, scalar: scalar)
        if let known = fallbacks[key] { return known }
        let found = findFallback(scalar, primary)
        if fallbacks.count >= Self.cacheEntries { fallbacks.removeAll() }
        fallbacks[key] = .some(found)
        return found
    }

    // MARK: Under the lock

    private func start() throws(TextError) {
        if started {
            if library == nil || config == nil { throw .noFonts }
            return
        }
        started = true
        var lib: FT_Library?
        guard FT_Init_FreeType(&lib) == 0, let lib else { throw .noFonts }
        library = lib
        guard let cfg = FcInitLoadConfigAndFonts() else { throw .noFonts }
        config = cfg
        defaultFamily = matchFamily(family: nil, weight: nil, slant: nil).flatMap { family(of: $0) }
    }

    private func open(path: String, index: Int) -> FontFace? {
        let key = "\(path)#\(index)"
        if let f = faces[key] { return f }
        guard let library, let f = FontFace(library: library, path: path, index: index) else { return nil }
        faces[key] = f
        return f
    }

    private func open(pattern: OpaquePointer) -> FontFace? {
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
        var index: Int32 = 0
        _ = FcPatternGetInteger(pattern, FC_INDEX, 0, &index)
        return open(path: String(cString: file), index: Int(index))
    }

    private func family(of pattern: OpaquePointer) -> String? {
        var s: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(pattern, FC_FAMILY, 0, &s) == FcResultMatch, let s else { return nil }
        return String(cString: s)
    }

    private func families(of pattern: OpaquePointer) -> [String] {
        var out: [String] = []
        var s: UnsafeMutablePointer<FcChar8>?
        var i: Int32 = 0
        while FcPatternGetString(pattern, FC_FAMILY, i, &s) == FcResultMatch, let str = s {
            out.append(String(cString: str))
            i += 1
        }
        return out
    }

    /// The first installed font whose `object` (a PostScript or full name) is `value`.
    private func listed(_ object: String, _ value: String) -> FontFace? {
        guard let pattern = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(pattern) }
        addString(pattern, object, value)
        guard let objects = FcObjectSetCreate() else { return nil }
        defer { FcObjectSetDestroy(objects) }
        FcObjectSetAdd(objects, FC_FILE)
        FcObjectSetAdd(objects, FC_INDEX)
        guard let set = FcFontList(config, pattern, objects) else { return nil }
        defer { FcFontSetDestroy(set) }
        // Several files may answer (the same face in two folders): take the first path in order.
        let patterns = (0..<Int(set.pointee.nfont)).compactMap { set.pointee.fonts[$0] }
        let ordered = patterns.sorted { (path(of: $0) ?? "") < (path(of: $1) ?? "") }
        for p in ordered { if let f = open(pattern: p) { return f } }
        return nil
    }

    private func addString(_ pattern: OpaquePointer, _ object: String, _ value: String) {
        _ = value.withCString { FcPatternAddString(pattern, object, UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self)) }
    }

    private func path(of pattern: OpaquePointer) -> String? {
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
        return String(cString: file)
    }

    /// fontconfig's best match (after its substitutions and aliases) for a family and style;
    /// the caller destroys the result.
    private func matchFamily(family: String?, weight: Int32?, slant: Int32?) -> OpaquePointer? {
        guard let pattern = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(pattern) }
        if let family { addString(pattern, FC_FAMILY, family) }
        if let weight { FcPatternAddInteger(pattern, FC_WEIGHT, weight) }
        if let slant { FcPatternAddInteger(pattern, FC_SLANT, slant) }
        FcConfigSubstitute(config, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        return FcFontMatch(config, pattern, &result)
    }

    private func resolve(_ name: String) -> FontFace? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty {
            if let f = listed(FC_POSTSCRIPT_NAME, trimmed) ?? listed(FC_FULLNAME, trimmed) { return f }
        }
        let request = FontRequest(trimmed)
        var first: OpaquePointer?
        defer { if let first { FcPatternDestroy(first) } }
        for family in request.families {
            guard let match = matchFamily(family: family, weight: request.weight, slant: request.slant) else { continue }
            // Accept a match that is the family asked for, or one fontconfig chose through an
            // alias (anything but its default font); otherwise try the next spelling.
            let names = families(of: match).map(FontRequest.key)
            if names.contains(FontRequest.key(family)) || !(names.first.map { $0 == defaultFamily.map(FontRequest.key) } ?? true) {
                let f = open(pattern: match)
                FcPatternDestroy(match)
                if let f { return f }
                continue
            }
            if first == nil { first = match } else { FcPatternDestroy(match) }
        }
        if let first, let f = open(pattern: first) { return f }
        guard let any = matchFamily(family: nil, weight: request.weight, slant: request.slant) else { return nil }
        defer { FcPatternDestroy(any) }
        return open(pattern: any)
    }

    private func findFallback(_ scalar: UInt32, _ primary: FontFace) -> FontFace? {
        if fallbackSets[primary] == nil {
            guard let pattern = FcPatternCreate() else { return nil }
            defer { FcPatternDestroy(pattern) }
            addString(pattern, FC_FAMILY, primary.family)
            FcConfigSubstitute(config, pattern, FcMatchPattern)
            FcDefaultSubstitute(pattern)
            var result = FcResultNoMatch
            guard let set = FcFontSort(config, pattern, 1, nil, &result) else { return nil }
            fallbackSets[primary] = set
        }
        guard let set = fallbackSets[primary] else { return nil }
        for i in 0..<Int(set.pointee.nfont) {
            guard let p = set.pointee.fonts[i] else { continue }
            var charset: OpaquePointer?
            guard FcPatternGetCharSet(p, FC_CHARSET, 0, &charset) == FcResultMatch, let charset,
                FcCharSetHasChar(charset, scalar) != 0
            else { continue }
            if let f = open(pattern: p), f !== primary, f.glyph(for: scalar) != nil { return f }
        }
        return nil
    }
}

/// A font name read as fontconfig families to try, in order, and a style.
struct FontRequest {
    var families: [String] = []
    var weight: Int32?
    var slant: Int32?

    /// Apple families with no metric-compatible font on Linux: the nearest fontconfig name.
    static let appleFamilies: [String: String] = [
        "helveticaneue": "Helvetica", "sfpro": "sans-serif", "sfprotext": "sans-serif", "sfprodisplay": "sans-serif",
        "sfui": "sans-serif", "sfuitext": "sans-serif", "sfuidisplay": "sans-serif", ".applesystemuifont": "sans-serif",
        "systemfont": "sans-serif", "lucidagrande": "sans-serif", "menlo": "monospace", "monaco": "monospace",
        "sfmono": "monospace", "newyork": "serif",
    ]

    /// Lowercase without blanks, hyphens or underscores (fontconfig compares families
    /// ignoring blanks and case).
    static func key(_ s: String) -> String {
        String(s.lowercased().filter { $0 != " " && $0 != "-" && $0 != "_" })
    }

    init(_ name: String) {
        var family = name
        // "Family-Style" (PostScript style): the part after the last hyphen, if it names a style.
        if let dash = name.lastIndex(of: "-") {
            let style = String(name[name.index(after: dash)...])
            if let s = Self.style(style) {
                family = String(name[..<dash])
                (weight, slant) = s
            }
        }
        var spellings = [family]
        // PostScript suffixes ("ArialMT", "TimesNewRomanPSMT") and CamelCase ("HelveticaNeue").
        var stem = family
        for suffix in ["PSMT", "MT", "PS"] where stem.hasSuffix(suffix) && stem.count > suffix.count + 1 {
            stem.removeLast(suffix.count)
            break
        }
        if !stem.contains(" ") {
            var spaced = ""
            var previous: Character?
            for c in stem {
                if c.isUppercase, let p = previous, p.isLowercase { spaced.append(" ") }
                spaced.append(c)
                previous = c
            }
            stem = spaced
        }
        if stem != family { spellings.append(stem) }
        if let apple = Self.appleFamilies[Self.key(family)] ?? Self.appleFamilies[Self.key(stem)] { spellings.append(apple) }
        families = spellings.filter { !$0.isEmpty }
    }

    /// (weight, slant) for a style word such as "Bold", "BoldItalic", "LightOblique", "Regular".
    static func style(_ word: String) -> (Int32?, Int32?)? {
        var w = word.lowercased()
        for suffix in ["psmt", "mt"] where w.hasSuffix(suffix) { w.removeLast(suffix.count) }
        var slant: Int32?
        for s in ["italic", "oblique"] where w.hasSuffix(s) {
            w.removeLast(s.count)
            slant = Int32(FC_SLANT_ITALIC)
        }
        let weights: [String: Int32] = [
            "": Int32(FC_WEIGHT_REGULAR), "regular": Int32(FC_WEIGHT_REGULAR), "roman": Int32(FC_WEIGHT_REGULAR),
            "book": Int32(FC_WEIGHT_REGULAR), "thin": Int32(FC_WEIGHT_THIN), "ultralight": Int32(FC_WEIGHT_ULTRALIGHT),
            "extralight": Int32(FC_WEIGHT_EXTRALIGHT), "light": Int32(FC_WEIGHT_LIGHT), "medium": Int32(FC_WEIGHT_MEDIUM),
            "semibold": Int32(FC_WEIGHT_SEMIBOLD), "demibold": Int32(FC_WEIGHT_DEMIBOLD), "bold": Int32(FC_WEIGHT_BOLD),
            "extrabold": Int32(FC_WEIGHT_EXTRABOLD), "heavy": Int32(FC_WEIGHT_HEAVY), "black": Int32(FC_WEIGHT_BLACK),
        ]
        guard let weight = weights[w], !(w.isEmpty && slant == nil) else { return nil }
        return (w.isEmpty || w == "regular" || w == "roman" || w == "book" ? nil : weight, slant)
    }
}
