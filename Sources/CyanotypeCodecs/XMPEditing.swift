import Foundation

// Small, bounds-checked edits of an XMP packet (RDF/XML), for writers that keep a file's XMP
// but change its pixels or its privacy: drop every GPS property, set the orientation and the
// pixel dimensions. The packet is not rebuilt: a tokenizer finds the byte ranges of the tags,
// attributes and text to change, and only those bytes are replaced, so everything else
// (whitespace, padding, unknown namespaces) stays as it was.

/// One lexical pass over an XML document: start and end tags with their attributes, and the
/// namespace prefixes in scope. Every index is checked; anything that is not well-formed
/// enough to edit safely (an unclosed tag or quote, mismatched end tags, nesting deeper than
/// 512) makes `parse` return nil.
struct XMLTags {
    struct Attribute {
        var prefix: Substring
        var local: Substring
        /// From the whitespace before the name to the closing quote.
        var whole: Range<Int>
        /// The value between the quotes.
        var value: Range<Int>
    }
    struct Tag {
        /// From '<' to '>' inclusive.
        var range: Range<Int>
        var prefix: Substring
        var local: Substring
        var attributes: [Attribute]
        var isEnd: Bool
        var selfClosing: Bool
        /// Nesting depth (0 for the outermost element).
        var depth: Int
        /// Namespace URIs of the prefixes in scope at this tag (its own declarations included).
        var namespaces: [Substring: Substring]
    }

    let text: [UInt8]
    var tags: [Tag] = []

    static let maxDepth = 512

    init?(_ bytes: [UInt8]) {
        text = bytes
        var i = 0
        let n = bytes.count
        var stack: [(prefix: Substring, local: Substring, namespaces: [Substring: Substring])] = []
        // Work on the UTF-8 bytes: names and values are ASCII-delimited, so offsets are exact.
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        func isNameChar(_ c: UInt8) -> Bool {
            !(isSpace(c) || c == 0x3C || c == 0x3E || c == 0x2F || c == 0x3D || c == 0x22 || c == 0x27 || c == 0x3F || c == 0x21)
        }
        func find(_ pattern: [UInt8], from: Int) -> Int? {
            guard !pattern.isEmpty, from <= n - pattern.count else { return nil }
            var k = from
            while k <= n - pattern.count {
                if bytes[k] == pattern[0] {
                    var ok = true
                    for j in 1..<pattern.count where bytes[k + j] != pattern[j] {
                        ok = false
                        break
                    }
                    if ok { return k }
                }
                k += 1
            }
            return nil
        }
        func name(_ r: Range<Int>) -> (Substring, Substring) {
            let s = Substring(String(decoding: bytes[r], as: UTF8.self))
            if let colon = s.firstIndex(of: ":") { return (s[s.startIndex..<colon], s[s.index(after: colon)...]) }
            return ("", s)
        }
        while i < n {
            guard bytes[i] == 0x3C else {  // text
                i += 1
                continue
            }
            guard i + 1 < n else { return nil }
            let next = bytes[i + 1]
            if next == 0x3F {  // <? ... ?>
                guard let end = find([0x3F, 0x3E], from: i + 2) else { return nil }
                i = end + 2
                continue
            }
            if next == 0x21 {  // <!-- -->, <![CDATA[ ]]>, <!DOCTYPE >
                if i + 3 < n, bytes[i + 2] == 0x2D, bytes[i + 3] == 0x2D {
                    guard let end = find([0x2D, 0x2D, 0x3E], from: i + 4) else { return nil }
                    i = end + 3
                } else if i + 8 < n, Array(bytes[(i + 2)..<(i + 9)]) == Array("[CDATA[".utf8) {
                    guard let end = find([0x5D, 0x5D, 0x3E], from: i + 9) else { return nil }
                    i = end + 3
                } else {
                    return nil  // a DOCTYPE (entities): not XMP, not editable safely
                }
                continue
            }
            let start = i
            let isEnd = next == 0x2F
            var k = i + (isEnd ? 2 : 1)
            let nameStart = k
            while k < n, isNameChar(bytes[k]) { k += 1 }
            guard k > nameStart, k < n else { return nil }
            let (prefix, local) = name(nameStart..<k)
            var attributes: [Attribute] = []
            var selfClosing = false
            var namespaces = stack.last?.namespaces ?? [:]
            // Attributes up to '>' or '/>'.
            while true {
                let wsStart = k
                while k < n, isSpace(bytes[k]) { k += 1 }
                guard k < n else { return nil }
                if bytes[k] == 0x3E { k += 1; break }
                if bytes[k] == 0x2F {
                    guard !isEnd, k + 1 < n, bytes[k + 1] == 0x3E else { return nil }
                    selfClosing = true
                    k += 2
                    break
                }
                guard !isEnd, k > wsStart else { return nil }  // attributes need whitespace before them
                let aStart = k
                while k < n, isNameChar(bytes[k]) { k += 1 }
                guard k > aStart else { return nil }
                let (ap, al) = name(aStart..<k)
                while k < n, isSpace(bytes[k]) { k += 1 }
                guard k < n, bytes[k] == 0x3D else { return nil }
                k += 1
                while k < n, isSpace(bytes[k]) { k += 1 }
                guard k < n, bytes[k] == 0x22 || bytes[k] == 0x27 else { return nil }
                let quote = bytes[k]
                let vStart = k + 1
                var v = vStart
                while v < n, bytes[v] != quote {
                    guard bytes[v] != 0x3C else { return nil }
                    v += 1
                }
                guard v < n else { return nil }
                attributes.append(Attribute(prefix: ap, local: al, whole: wsStart..<(v + 1), value: vStart..<v))
                if ap == "xmlns" { namespaces[al] = Substring(String(decoding: bytes[vStart..<v], as: UTF8.self)) }
                if ap.isEmpty && al == "xmlns" { namespaces[""] = Substring(String(decoding: bytes[vStart..<v], as: UTF8.self)) }
                k = v + 1
            }
            if isEnd {
                guard let open = stack.popLast(), open.prefix == prefix, open.local == local else { return nil }
                tags.append(
                    Tag(
                        range: start..<k, prefix: prefix, local: local, attributes: [], isEnd: true, selfClosing: false,
                        depth: stack.count, namespaces: open.namespaces))
            } else {
                tags.append(
                    Tag(
                        range: start..<k, prefix: prefix, local: local, attributes: attributes, isEnd: false,
                        selfClosing: selfClosing, depth: stack.count, namespaces: namespaces))
                if !selfClosing {
                    stack.append((prefix, local, namespaces))
                    guard stack.count <= Self.maxDepth else { return nil }
                }
            }
            i = k
        }
        guard stack.isEmpty else { return nil }
    }

    /// The index of the end tag matching the start tag at `index` (itself when self-closing).
    func closing(_ index: Int) -> Int? {
        let open = tags[index]
        if open.selfClosing { return index }
        var k = index + 1
        while k < tags.count {
            if tags[k].isEnd && tags[k].depth == open.depth { return k }
            k += 1
        }
        return nil
    }
}

/// The namespaces the edits look for.
enum XMPNamespace {
    static let exif: Substring = "http://ns.adobe.com/exif/1.0/"
    static let tiff: Substring = "http://ns.adobe.com/tiff/1.0/"
}

extension ImageCodecs {
    /// Whether a property name (the part after the prefix) is a position: "GPS..." in any
    /// namespace (exif:GPSLatitude, and vendors' drone-dji:GpsLatitude), case-insensitive.
    static func isGPSName(_ local: Substring) -> Bool { local.lowercased().hasPrefix("gps") }

    /// `xmp` without any GPS property: every attribute and element whose name starts with
    /// "GPS" (any case, any namespace: exif:GPSLatitude, exif:GPSTimeStamp, drone-dji:GpsLongitude)
    /// is removed, elements with everything inside them. Returns `xmp` unchanged when it has
    /// none, and nil when it is not well-formed enough to edit (a caller that must not leak a
    /// location should then drop the packet). Place names (photoshop:City) are not positions
    /// and are kept.
    public static func xmpRemovingGPS(_ xmp: Data) -> Data? {
        guard let doc = XMLTags([UInt8](xmp)) else { return nil }
        var cuts: [Range<Int>] = []
        var i = 0
        while i < doc.tags.count {
            let tag = doc.tags[i]
            if !tag.isEnd && isGPSName(tag.local) && !tag.prefix.isEmpty {
                guard let end = doc.closing(i) else { return nil }
                cuts.append(tag.range.lowerBound..<doc.tags[end].range.upperBound)
                i = end + 1
                continue
            }
            if !tag.isEnd {
                for a in tag.attributes where isGPSName(a.local) && !a.prefix.isEmpty && a.prefix != "xmlns" {
                    cuts.append(a.whole)
                }
            }
            i += 1
        }
        guard !cuts.isEmpty else { return xmp }
        return Data(splice(doc.text, cuts.map { ($0, [UInt8]()) }))
    }

    /// Whether `xmp` holds a GPS property (see `xmpRemovingGPS`); true when it cannot be read.
    public static func xmpContainsGPS(_ xmp: Data) -> Bool {
        guard let stripped = xmpRemovingGPS(xmp) else { return true }
        return stripped != xmp
    }

    /// `xmp` with tiff:Orientation set to `orientation` (1...8), where it has one.
    public static func xmpSettingOrientation(_ xmp: Data, _ orientation: Int) -> Data {
        guard (1...8).contains(orientation) else { return xmp }
        return xmpSetting(xmp, [(XMPNamespace.tiff, "Orientation", orientation)])
    }

    /// `xmp` with exif:PixelXDimension/PixelYDimension and tiff:ImageWidth/ImageLength set to
    /// `width` and `height`, where it has them.
    public static func xmpSettingPixelDimensions(_ xmp: Data, width: Int, height: Int) -> Data {
        xmpSetting(
            xmp,
            [
                (XMPNamespace.exif, "PixelXDimension", width), (XMPNamespace.exif, "PixelYDimension", height),
                (XMPNamespace.tiff, "ImageWidth", width), (XMPNamespace.tiff, "ImageLength", height),
            ])
    }

    /// Sets simple integer properties, in attribute form or element form; unchanged when the
    /// packet is not well-formed.
    static func xmpSetting(_ xmp: Data, _ properties: [(namespace: Substring, name: Substring, value: Int)]) -> Data {
        guard let doc = XMLTags([UInt8](xmp)) else { return xmp }
        func wanted(_ ns: Substring?, _ local: Substring) -> Int? {
            guard let ns else { return nil }
            return properties.first { $0.namespace == ns && $0.name == local }?.value
        }
        var edits: [(Range<Int>, [UInt8])] = []
        for (i, tag) in doc.tags.enumerated() where !tag.isEnd {
            for a in tag.attributes where !a.prefix.isEmpty {
                if let v = wanted(tag.namespaces[a.prefix], a.local) { edits.append((a.value, Array(String(v).utf8))) }
            }
            // <tiff:Orientation>6</tiff:Orientation>: the text between the two tags.
            if !tag.selfClosing, let v = wanted(tag.namespaces[tag.prefix], tag.local), i + 1 < doc.tags.count,
                doc.tags[i + 1].isEnd, doc.tags[i + 1].depth == tag.depth
            {
                edits.append((tag.range.upperBound..<doc.tags[i + 1].range.lowerBound, Array(String(v).utf8)))
            }
        }
        guard !edits.isEmpty else { return xmp }
        return Data(splice(doc.text, edits))
    }

    /// `bytes` with each range replaced (ranges sorted here; overlapping ones are merged into
    /// the first).
    static func splice(_ bytes: [UInt8], _ edits: [(Range<Int>, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var pos = 0
        for (r, replacement) in edits.sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) where r.lowerBound >= pos {
            out += bytes[pos..<r.lowerBound]
            out += replacement
            pos = r.upperBound
        }
        out += bytes[pos...]
        return out
    }
}
