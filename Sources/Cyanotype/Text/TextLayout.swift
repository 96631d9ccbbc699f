import CText
import Foundation

// Text set as a typesetter sets it: paragraphs split at line breaks, each paragraph's
// characters ordered by the Unicode bidirectional algorithm (FriBidi), split into runs of one
// style, direction, script and font (with per-character fallback to a font that has the
// character), each run shaped by HarfBuzz (kerning, ligatures, marks, Arabic joining), and the
// runs placed in visual order. Lines are not wrapped: as in Core Image, only line breaks in the
// text start new lines.

/// The look of a stretch of text, as the text filters read it from their inputs.
struct TextStyle: Hashable, Sendable {
    var font: String
    /// Points; pixels are points times the scale factor.
    var points: Double
    /// Premultiplied working-space colour.
    var color: SIMD4<Float>
    /// Points added after every character, the font's kerning off; nil: the font's kerning.
    var kern: Double?
    var alignment: NSTextAlignment = .natural
    var direction: NSWritingDirection = .natural
}

/// Characters (Unicode scalars) with a style each.
struct StyledText: Sendable {
    var scalars: [UInt32] = []
    var styleOf: [Int32] = []
    var styles: [TextStyle] = []

    init() {}

    /// Plain text in one style.
    init(_ text: String, style: TextStyle) {
        append(text, style: style)
    }

    mutating func append(_ text: String, style: TextStyle) {
        let index: Int32
        if let i = styles.lastIndex(of: style) {
            index = Int32(i)
        } else {
            index = Int32(styles.count)
            styles.append(style)
        }
        for s in text.unicodeScalars {
            scalars.append(s.value)
            styleOf.append(index)
        }
    }
}

/// One glyph where the layout puts it.
struct PlacedGlyph: Sendable {
    let face: FontFace
    let glyph: UInt32
    /// Pen position: pixels from the box's left edge, baseline pixels down from its top.
    let x: Double, baseline: Double
    let pixels: Double
    let color: SIMD4<Float>
}

/// A laid-out line, for tests and the box.
struct LaidOutLine: Sendable {
    /// Left edge of the line's advances, and their total width, in pixels.
    let x: Double, width: Double
    /// Baseline, pixels down from the box's top; the line's ascent and descent.
    let baseline: Double, ascent: Double, descent: Double
    /// The paragraph's resolved direction.
    let rightToLeft: Bool
}

/// Text laid out in pixels: glyphs and the typographic box (lines as wide as their advances,
/// as tall as their fonts' ascent plus descent, spaced by the fonts' line gap).
struct TextLayout: Sendable {
    private(set) var glyphs: [PlacedGlyph] = []
    private(set) var lines: [LaidOutLine] = []
    /// The typographic box: (0, 0, width, height), y down.
    private(set) var width: Double = 0
    private(set) var height: Double = 0

    /// Glyphs may be at most this many pixels per em (a glyph's bitmap is built with the image).
    static let maximumPixelsPerEm = 4096.0

    init(_ text: StyledText, scale: Double) throws(TextError) {
        let library = FontLibrary.shared
        var paragraphs: [Range<Int>] = []
        var start = 0, i = 0
        let s = text.scalars
        while i < s.count {
            let c = s[i]
            if c == 0x0A || c == 0x0D || c == 0x2028 || c == 0x2029 {
                paragraphs.append(start..<i)
                if c == 0x0D, i + 1 < s.count, s[i + 1] == 0x0A { i += 1 }
                start = i + 1
            }
            i += 1
        }
        paragraphs.append(start..<s.count)

        struct Line {
            var runs: [ShapedRun]
            var width: Double
            var ascent: Double, descent: Double, gap: Double
            var alignment: NSTextAlignment
            var rtl: Bool
        }
        var set: [Line] = []
        for p in paragraphs {
            // The style of the paragraph: its first character's, else (empty) the break's.
            let style =
                s.isEmpty
                ? text.styles.first ?? TextStyle(font: "Helvetica", points: 12, color: SIMD4(0, 0, 0, 1), kern: nil)
                : text.styles[Int(text.styleOf[min(p.lowerBound, s.count - 1)])]
            let (runs, rtl) = try Self.shape(text, p, paragraphStyle: style, scale: scale, library)
            var ascent = 0.0, descent = 0.0, gap = 0.0
            if runs.isEmpty {
                let face = try library.face(named: style.font)
                let k = Self.pixels(style, scale) / face.unitsPerEm
                (ascent, descent, gap) = (face.ascender * k, face.descender * k, face.lineGap * k)
            }
            for r in runs {
                let k = r.pixels / r.face.unitsPerEm
                ascent = max(ascent, r.face.ascender * k)
                descent = max(descent, r.face.descender * k)
                gap = max(gap, r.face.lineGap * k)
            }
            set.append(
                Line(
                    runs: runs, width: runs.reduce(0) { $0 + $1.width }, ascent: ascent, descent: descent, gap: gap,
                    alignment: style.alignment, rtl: rtl))
        }

        width = set.reduce(0) { max($0, $1.width) }
        var top = 0.0
        for (n, line) in set.enumerated() {
            let baseline = top + line.ascent
            let x: Double
            switch line.alignment {
            case .left: x = 0
            case .right: x = width - line.width
            case .center: x = (width - line.width) / 2
            case .natural, .justified: x = line.rtl ? width - line.width : 0
            }
            var pen = x
            for run in line.runs {
                for g in run.glyphs {
                    glyphs.append(
                        PlacedGlyph(
                            face: run.face, glyph: g.glyph, x: pen + g.xOffset, baseline: baseline - g.yOffset,
                            pixels: run.pixels, color: run.color))
                    pen += g.advance
                }
            }
            lines.append(LaidOutLine(x: x, width: line.width, baseline: baseline, ascent: line.ascent, descent: line.descent, rightToLeft: line.rtl))
            top = baseline + line.descent + (n + 1 < set.count ? line.gap : 0)
        }
        height = top
    }

    static func pixels(_ style: TextStyle, _ scale: Double) -> Double {
        min(max(0, style.points * scale), maximumPixelsPerEm)
    }

    /// A shaped run: glyphs left to right, in pixels.
    private struct ShapedRun {
        struct Glyph {
            let glyph: UInt32
            let advance: Double, xOffset: Double, yOffset: Double
        }
        let face: FontFace
        let pixels: Double
        let color: SIMD4<Float>
        var glyphs: [Glyph]
        var width: Double { glyphs.reduce(0) { $0 + $1.advance } }
    }

    /// One paragraph's runs in visual order, and whether its base direction is right to left.
    private static func shape(
        _ text: StyledText, _ p: Range<Int>, paragraphStyle: TextStyle, scale: Double,
        _ library: FontLibrary
    ) throws(TextError) -> ([ShapedRun], Bool) {
        let n = p.count
        var base: FriBidiParType
        switch paragraphStyle.direction {
        case .natural: base = SHIM_FRIBIDI_PAR_ON
        case .leftToRight: base = SHIM_FRIBIDI_PAR_LTR
        case .rightToLeft: base = SHIM_FRIBIDI_PAR_RTL
        }
        guard n > 0 else { return ([], base == SHIM_FRIBIDI_PAR_RTL) }
        // A tab is a space here (no tab stops); other control characters draw nothing (a zero
        // width space, which HarfBuzz hides) rather than the missing-glyph box.
        let scalars = text.scalars[p].map { c -> UInt32 in
            c == 0x09 ? 0x20 : (c < 0x20 || (0x7F...0x9F).contains(c)) ? 0x200B : c
        }

        // Levels (Unicode's bidirectional algorithm): even left to right, odd right to left.
        var levels = [FriBidiLevel](repeating: 0, count: n)
        var types = [FriBidiCharType](repeating: FriBidiCharType(rawValue: 0), count: n)
        var brackets = [FriBidiBracketType](repeating: 0, count: n)
        fribidi_get_bidi_types(scalars, FriBidiStrIndex(n), &types)
        fribidi_get_bracket_types(scalars, FriBidiStrIndex(n), types, &brackets)
        if fribidi_get_par_embedding_levels_ex(types, brackets, FriBidiStrIndex(n), &base, &levels) == 0 {
            levels = [FriBidiLevel](repeating: 0, count: n)
            base = SHIM_FRIBIDI_PAR_LTR
        }
        let rtl = base == SHIM_FRIBIDI_PAR_RTL
        let baseLevel: FriBidiLevel = rtl ? 1 : 0
        // Rule L1: whitespace at the end of the line takes the paragraph's level.
        var t = n - 1
        while t >= 0, Unicode.Scalar(scalars[t]).map({ $0.properties.isWhitespace || $0.properties.isDefaultIgnorableCodePoint }) ?? false {
            levels[t] = baseLevel
            t -= 1
        }

        // Scripts: common and inherited characters (spaces, digits, marks) join their neighbours.
        let unicode = hb_unicode_funcs_get_default()
        var scripts = scalars.map { hb_unicode_script(unicode, $0) }
        let neutral: (hb_script_t) -> Bool = { $0 == HB_SCRIPT_COMMON || $0 == HB_SCRIPT_INHERITED || $0 == HB_SCRIPT_UNKNOWN }
        if let first = scripts.first(where: { !neutral($0) }) {
            var last = first
            for i in 0..<n {
                if neutral(scripts[i]) { scripts[i] = last } else { last = scripts[i] }
            }
        }

        // Fonts: the style's font where it has the character, else a fallback that has it;
        // marks and invisible joiners stay with the character before them.
        var faces: [FontFace] = []
        faces.reserveCapacity(n)
        var primaryFor: [Int32: FontFace] = [:]
        for i in 0..<n {
            let styleIndex = text.styleOf[p.lowerBound + i]
            let primary: FontFace
            if let f = primaryFor[styleIndex] {
                primary = f
            } else {
                primary = try library.face(named: text.styles[Int(styleIndex)].font)
                primaryFor[styleIndex] = primary
            }
            let c = scalars[i]
            let category = hb_unicode_general_category(unicode, c)
            let attaches =
                category == HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK || category == HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK
                || category == HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK || category == HB_UNICODE_GENERAL_CATEGORY_FORMAT
                || (0xFE00...0xFE0F).contains(c)
            if attaches, i > 0, text.styleOf[p.lowerBound + i - 1] == styleIndex,
                faces[i - 1].glyph(for: c) != nil || category == HB_UNICODE_GENERAL_CATEGORY_FORMAT || primary.glyph(for: c) == nil
            {
                faces.append(faces[i - 1])
            } else if primary.glyph(for: c) != nil || category == HB_UNICODE_GENERAL_CATEGORY_FORMAT {
                faces.append(primary)
            } else {
                faces.append(library.fallback(for: c, after: primary) ?? primary)
            }
        }

        // Runs of one style, level, script and font, each shaped on its own (with the whole
        // paragraph as context) and reordered visually (rule L2).
        var runs: [(range: Range<Int>, level: FriBidiLevel, run: ShapedRun)] = []
        var runStart = 0
        for i in 1...n
        where i == n || levels[i] != levels[runStart] || scripts[i] != scripts[runStart]
            || faces[i] !== faces[runStart] || text.styleOf[p.lowerBound + i] != text.styleOf[p.lowerBound + runStart]
        {
            let style = text.styles[Int(text.styleOf[p.lowerBound + runStart])]
            let shaped = shapeRun(
                scalars, runStart..<i, level: levels[runStart], script: scripts[runStart], face: faces[runStart],
                style: style, scale: scale)
            runs.append((runStart..<i, levels[runStart], shaped))
            runStart = i
        }
        if let maxLevel = runs.map(\.level).max(), let minOdd = runs.map(\.level).filter({ $0 & 1 == 1 }).min() {
            var level = maxLevel
            while level >= minOdd {
                var i = 0
                while i < runs.count {
                    guard runs[i].level >= level else { i += 1; continue }
                    var j = i
                    while j < runs.count, runs[j].level >= level { j += 1 }
                    runs[i..<j].reverse()
                    i = j
                }
                level -= 1
            }
        }
        return (runs.map(\.run), rtl)
    }

    private static func shapeRun(
        _ scalars: [UInt32], _ range: Range<Int>, level: FriBidiLevel, script: hb_script_t,
        face: FontFace, style: TextStyle, scale: Double
    ) -> ShapedRun {
        let pixels = Self.pixels(style, scale)
        guard let buffer = hb_buffer_create() else { return ShapedRun(face: face, pixels: pixels, color: style.color, glyphs: []) }
        defer { hb_buffer_destroy(buffer) }
        hb_buffer_add_utf32(buffer, scalars, Int32(scalars.count), UInt32(range.lowerBound), Int32(range.count))
        hb_buffer_set_direction(buffer, level & 1 == 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        if script != HB_SCRIPT_COMMON && script != HB_SCRIPT_INHERITED && script != HB_SCRIPT_UNKNOWN {
            hb_buffer_set_script(buffer, script)
        }
        hb_buffer_guess_segment_properties(buffer)
        var features: [hb_feature_t] = []
        if style.kern != nil {
            var f = hb_feature_t()
            if hb_feature_from_string("-kern", -1, &f) != 0 { features.append(f) }
        }
        hb_shape(face.hbFont, buffer, features, UInt32(features.count))
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count), let positions = hb_buffer_get_glyph_positions(buffer, &count) else {
            return ShapedRun(face: face, pixels: pixels, color: style.color, glyphs: [])
        }
        let k = pixels / face.unitsPerEm
        let extra = (style.kern ?? 0) * scale
        var glyphs: [ShapedRun.Glyph] = []
        glyphs.reserveCapacity(Int(count))
        for g in 0..<Int(count) {
            // Letter spacing goes after each cluster (a character with its marks).
            let endsCluster = g + 1 == Int(count) || infos[g + 1].cluster != infos[g].cluster
            glyphs.append(
                .init(
                    glyph: infos[g].codepoint, advance: Double(positions[g].x_advance) * k + (endsCluster ? extra : 0),
                    xOffset: Double(positions[g].x_offset) * k, yOffset: Double(positions[g].y_offset) * k))
        }
        return ShapedRun(face: face, pixels: pixels, color: style.color, glyphs: glyphs)
    }
}
