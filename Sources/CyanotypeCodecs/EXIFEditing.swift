import Foundation

// Small, bounds-checked edits of a TIFF-structured EXIF block ("II*\0" / "MM\0*"), for
// writers that keep a file's EXIF but change its pixels or its privacy: drop the GPS
// directory, update the pixel dimensions. Self-contained: it reads only the entries it edits.

extension ImageCodecs {
    /// `exif` without its GPS directory: IFD0's GPSInfo entry removed and every byte of the GPS
    /// IFD (entries and out-of-line values) zeroed, so no coordinate survives in the block.
    /// Returns `exif` unchanged when it has no GPS entry, and nil when the block is malformed
    /// (a caller that must not leak a location should then drop the EXIF block).
    public static func exifRemovingGPS(_ exif: Data) -> Data? {
        var b = [UInt8](exif)
        guard let t = TIFFBlock(b), let first = t.firstIFD, let ifd0 = t.directory(at: first) else { return nil }
        guard let gpsIndex = ifd0.entries.firstIndex(where: { $0.tag == 0x8825 }) else { return exif }
        let gpsOffset = t.u32(ifd0.entries[gpsIndex].valueAt) ?? 0
        if let gps = t.directory(at: gpsOffset) {
            // Out-of-line values first, then the directory itself.
            for e in gps.entries where e.byteCount > 4 {
                guard let at = t.u32(e.valueAt) else { return nil }
                guard at >= 0, at + e.byteCount <= b.count else { return nil }
                for i in at..<(at + e.byteCount) { b[i] = 0 }
            }
            for i in gps.start..<gps.end { b[i] = 0 }
        } else if gpsOffset != 0 {
            return nil
        }
        // Remove the entry: later entries and the next-IFD offset move down by 12 bytes.
        let entryStart = ifd0.start + 2 + 12 * gpsIndex
        let moveFrom = entryStart + 12, moveEnd = ifd0.end  // entries after it + the 4-byte next offset
        for i in moveFrom..<moveEnd { b[i - 12] = b[i] }
        for i in (moveEnd - 12)..<moveEnd { b[i] = 0 }
        t.put16(&b, ifd0.start, UInt16(ifd0.entries.count - 1))
        return Data(b)
    }

    /// Whether `exif` has a GPS directory (IFD0's GPSInfo entry).
    public static func exifContainsGPS(_ exif: Data) -> Bool {
        let b = [UInt8](exif)
        guard let t = TIFFBlock(b), let first = t.firstIFD, let ifd0 = t.directory(at: first) else { return false }
        return ifd0.entries.contains { $0.tag == 0x8825 }
    }

    /// `exif` with the EXIF IFD's PixelXDimension and PixelYDimension (when present) set to
    /// `width` and `height`, for pixels that were resized or cropped; unchanged when it has
    /// neither or is malformed.
    public static func exifSettingPixelDimensions(_ exif: Data, width: Int, height: Int) -> Data {
        var b = [UInt8](exif)
        guard let t = TIFFBlock(b), let first = t.firstIFD, let ifd0 = t.directory(at: first),
            let pointer = ifd0.entries.first(where: { $0.tag == 0x8769 }),
            let exifOffset = t.u32(pointer.valueAt), let exifIFD = t.directory(at: exifOffset)
        else { return exif }
        for e in exifIFD.entries where e.count == 1 && (e.tag == 0xA002 || e.tag == 0xA003) {
            let v = e.tag == 0xA002 ? width : height
            switch e.type {
            case 3: t.put16(&b, e.valueAt, UInt16(clamping: v))
            case 4: t.put32(&b, e.valueAt, UInt32(clamping: v))
            default: continue
            }
        }
        return Data(b)
    }
}

// MARK: - Directories as values: reading a tree of IFDs and writing it back

/// One directory entry with its value's bytes (in the byte order of the block it was read
/// from) and, for the pointer tags (Exif, GPS, Interoperability), the directory it points to.
struct IFDItem: Equatable {
    var tag: Int
    var type: Int
    var count: Int
    var value: [UInt8]
    var sub: [IFDItem]? = nil

    /// The pointer tags followed when reading and rewritten when writing.
    static let pointerTags: Set<Int> = [0x8769, 0x8825, 0xA005]

    /// IFD0 tags that describe the pixel layout of the file they sit in (strips, tiles, samples,
    /// compression, thumbnails, colour) or are carried elsewhere (XMP 700, ICC 34675, Photoshop
    /// resources): never copied from one file's directory into another's.
    static func isStructural(_ tag: Int) -> Bool {
        switch tag {
        case 0x00FE...0x0109, 0x010A, 0x0111, 0x0115...0x0119, 0x011C...0x0127, 0x0129, 0x012C, 0x012D, 0x013D...0x015F,
            0x0200...0x0214, 0x02BC, 0x8649, 0x8773, 0x87AC:
            return true
        default:
            return false
        }
    }

    /// The tags of IFD0 that only restate what every writer writes anyway.
    static let layoutOnly: Set<Int> = [0x0112, 0x011A, 0x011B, 0x0128]
}

extension TIFFBlock {
    /// The entries of the IFD at `offset` with their values, the pointer tags' directories read
    /// too (at most 4 levels, 64 directories, each once). Nil when the directory does not fit;
    /// entries whose values fall outside the block are skipped, and so are values past
    /// `budget` bytes in all (entries may share bytes: a hostile file cannot make the copies
    /// larger than the budget, 64 MiB at most).
    func items(at offset: Int, depth: Int = 0, visited: inout Set<Int>, budget: inout Int) -> [IFDItem]? {
        guard depth < 4, !visited.contains(offset), visited.count < 64, let dir = directory(at: offset) else { return nil }
        visited.insert(offset)
        var out: [IFDItem] = []
        for e in dir.entries {
            let size = e.byteCount
            guard e.count > 0, size <= bytes.count, size <= budget else { continue }
            budget -= size
            let at = size <= 4 ? e.valueAt : (u32(e.valueAt) ?? -1)
            guard at >= 0, at + size <= bytes.count else { continue }
            var item = IFDItem(tag: e.tag, type: e.type, count: e.count, value: Array(bytes[at..<(at + size)]))
            if IFDItem.pointerTags.contains(e.tag) {
                guard e.count == 1, e.type == 4 || e.type == 13, let p = u32(e.valueAt),
                    let sub = items(at: p, depth: depth + 1, visited: &visited, budget: &budget)
                else { continue }
                item.sub = sub
            }
            out.append(item)
        }
        return out
    }

    /// IFD0 and the directories it points to, or nil when IFD0 cannot be read.
    var tree: [IFDItem]? {
        guard let first = firstIFD else { return nil }
        var visited = Set<Int>()
        var budget = min(bytes.count, 64 << 20)
        return items(at: first, visited: &visited, budget: &budget)
    }
}

/// Writes directories of `IFDItem`s: a standalone EXIF block, or extra IFD0 entries and their
/// directories appended to a TIFF file.
enum IFDWriter {
    /// The size of one value unit of `type` (byte order swaps work unit by unit; RATIONAL's two
    /// halves are swapped separately).
    static func unit(_ type: Int) -> Int {
        switch type {
        case 3, 8: return 2
        case 4, 5, 9, 10, 11, 13: return 4
        case 12: return 8
        default: return 1
        }
    }

    /// `value` in the other byte order.
    static func swapped(_ value: [UInt8], type: Int) -> [UInt8] {
        let u = unit(type)
        guard u > 1 else { return value }
        var v = value
        var i = 0
        while i + u <= v.count {
            v[i..<(i + u)].reverse()
            i += u
        }
        return v
    }

    static func put16(_ b: inout [UInt8], _ v: Int, little: Bool) {
        let lo = UInt8(v & 0xFF), hi = UInt8(v >> 8 & 0xFF)
        b += little ? [lo, hi] : [hi, lo]
    }
    static func put32(_ b: inout [UInt8], _ v: Int, little: Bool) {
        let le = (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) }
        b += little ? le : le.reversed()
    }
    static func set32(_ b: inout [UInt8], at: Int, _ v: Int, little: Bool) {
        for i in 0..<4 { b[little ? at + i : at + 3 - i] = UInt8(v >> (8 * i) & 0xFF) }
    }

    /// Appends a directory of `items` (values read in `sourceLittle` order, written in
    /// `little` order) and their out-of-line values and sub-directories to `out`, with
    /// `next` as its next-IFD offset; returns the directory's offset. `raw` are 12-byte
    /// entries already in `out`'s order (a file's own), kept as they are. `out` starts
    /// `base` bytes into the file (offsets written and returned count from the file's start).
    @discardableResult
    static func appendDirectory(
        _ items: [IFDItem], raw: [(tag: Int, bytes: [UInt8])] = [], sourceLittle: Bool, into out: inout [UInt8],
        little: Bool, next: Int = 0, base: Int = 0
    ) -> Int {
        if (base + out.count) % 2 == 1 { out.append(0) }
        let sorted = items.sorted { $0.tag < $1.tag }
        let total = sorted.count + raw.count
        let start = out.count
        out += [UInt8](repeating: 0, count: 2 + 12 * total + 4)
        // Values and sub-directories after the directory.
        var entries: [(tag: Int, bytes: [UInt8])] = raw
        for item in sorted {
            var e: [UInt8] = []
            put16(&e, item.tag, little: little)
            if let sub = item.sub {
                put16(&e, 4, little: little)
                put32(&e, 1, little: little)
                let at = appendDirectory(sub, sourceLittle: sourceLittle, into: &out, little: little, base: base)
                put32(&e, at, little: little)
            } else {
                put16(&e, item.type, little: little)
                put32(&e, item.count, little: little)
                let v = sourceLittle == little ? item.value : swapped(item.value, type: item.type)
                if v.count <= 4 {
                    e += v + [UInt8](repeating: 0, count: 4 - v.count)
                } else {
                    if (base + out.count) % 2 == 1 { out.append(0) }
                    put32(&e, base + out.count, little: little)
                    out += v
                }
            }
            entries.append((item.tag, e))
        }
        entries.sort { $0.tag < $1.tag }
        var dir: [UInt8] = []
        put16(&dir, total, little: little)
        for e in entries { dir += e.bytes }
        put32(&dir, next, little: little)
        out.replaceSubrange(start..<(start + dir.count), with: dir)
        return base + start
    }

    /// A standalone little-endian EXIF block ("II*\0") holding `ifd0` and its directories.
    static func block(_ ifd0: [IFDItem], sourceLittle: Bool) -> Data {
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        appendDirectory(ifd0, sourceLittle: sourceLittle, into: &out, little: true)
        return Data(out)
    }
}

extension ImageCodecs {
    /// The EXIF block of a TIFF file: its IFD0's descriptive tags (Make, Model, DateTime,
    /// Artist, Copyright...) and its EXIF and GPS directories, as a standalone block; nil when
    /// IFD0 says nothing beyond the layout (orientation and resolution alone do not count).
    static func exifBlock(ofTIFFFile file: TIFFBlock) -> Data? {
        guard let tree = file.tree else { return nil }
        let kept = tree.filter { !IFDItem.isStructural($0.tag) }
        guard kept.contains(where: { !IFDItem.layoutOnly.contains($0.tag) }) else { return nil }
        return IFDWriter.block(kept, sourceLittle: file.little)
    }

    /// The XMP packet of a TIFF file's IFD0 (tag 700), when present.
    static func xmp(ofTIFFFile file: TIFFBlock) -> Data? {
        guard let first = file.firstIFD, let dir = file.directory(at: first),
            let e = dir.entries.first(where: { $0.tag == 0x02BC && ($0.type == 1 || $0.type == 7 || $0.type == 2) })
        else { return nil }
        let size = e.byteCount
        let at = size <= 4 ? e.valueAt : (file.u32(e.valueAt) ?? -1)
        guard size > 0, at >= 0, at + size <= file.bytes.count else { return nil }
        return Data(file.bytes[at..<(at + size)])
    }

    /// `tiff` (a classic TIFF written by our encoder) with the descriptive IFD0 tags and the
    /// EXIF and GPS directories of `exif`, and `xmp` as tag 700, added to its first directory
    /// (`tiffMetadataTail`). Unchanged when there is nothing to add or the file is not a
    /// classic TIFF.
    static func tiffAddingMetadata(_ tiff: Data, exif: Data?, xmp: Data?) -> Data {
        var out = [UInt8](tiff)
        guard let file = TIFFBlock(out), let ifd0 = firstDirectory(of: file),
            let tail = tiffMetadataTail(ifd0: ifd0.raw, next: ifd0.next, little: file.little, fileLength: out.count, exif: exif, xmp: xmp)
        else { return tiff }
        out += tail.bytes
        IFDWriter.set32(&out, at: 4, tail.directory, little: file.little)
        return Data(out)
    }

    /// The 12-byte entries of `file`'s first directory, by tag, and the offset of the directory
    /// after it: what `tiffMetadataTail` copies. Nil when the file has no readable IFD0.
    static func firstDirectory(of file: TIFFBlock) -> (raw: [(tag: Int, bytes: [UInt8])], next: Int)? {
        guard let first = file.firstIFD, let ifd0 = file.directory(at: first) else { return nil }
        let raw = ifd0.entries.indices.map { i -> (tag: Int, bytes: [UInt8]) in
            let at = ifd0.start + 2 + 12 * i
            return (ifd0.entries[i].tag, Array(file.bytes[at..<(at + 12)]))
        }
        return (raw, file.u32(ifd0.end - 4) ?? 0)
    }

    /// What adds `exif`'s descriptive IFD0 tags and EXIF and GPS directories, and `xmp` as tag
    /// 700, to a classic TIFF of `fileLength` bytes whose first directory holds the 12-byte
    /// entries `ifd0` (then `next`): a new IFD0 (those entries and the new ones) with its
    /// values, to append to the file, and its offset, to write into the header at byte 4.
    /// Tags the file already has (orientation, resolution) keep the file's values; nil when
    /// there is nothing to add or the file would outgrow 32-bit offsets. One path for the
    /// whole-file and the streaming writers.
    static func tiffMetadataTail(
        ifd0 raw: [(tag: Int, bytes: [UInt8])], next: Int, little: Bool, fileLength: Int, exif: Data?, xmp: Data?
    ) -> (bytes: [UInt8], directory: Int)? {
        let existing = Set(raw.map(\.tag))
        var items: [IFDItem] = []
        var sourceLittle = little
        if let exif, let block = TIFFBlock([UInt8](exif)), let tree = block.tree {
            sourceLittle = block.little
            items = tree.filter { !IFDItem.isStructural($0.tag) && !existing.contains($0.tag) }
        }
        if let xmp, !xmp.isEmpty, !existing.contains(0x02BC) {
            items.append(IFDItem(tag: 0x02BC, type: 1, count: xmp.count, value: [UInt8](xmp)))
        }
        guard !items.isEmpty else { return nil }
        var out: [UInt8] = []
        let at = IFDWriter.appendDirectory(
            items, raw: raw, sourceLittle: sourceLittle, into: &out, little: little, next: next, base: fileLength)
        guard fileLength + out.count < Int(UInt32.max) else { return nil }
        return (out, at)
    }

    /// `exif` with the EXIF IFD's ColorSpace (0xA001, when present) saying how the pixels it
    /// goes with are written: 1 (sRGB) when `sRGB`, else 0xFFFF (uncalibrated: the embedded
    /// profile says); unchanged when it has no such entry or is malformed.
    public static func exifSettingColorSpace(_ exif: Data, sRGB: Bool) -> Data {
        var b = [UInt8](exif)
        guard let t = TIFFBlock(b), let first = t.firstIFD, let ifd0 = t.directory(at: first),
            let pointer = ifd0.entries.first(where: { $0.tag == 0x8769 }),
            let exifOffset = t.u32(pointer.valueAt), let exifIFD = t.directory(at: exifOffset)
        else { return exif }
        for e in exifIFD.entries where e.tag == 0xA001 && e.type == 3 && e.count == 1 {
            t.put16(&b, e.valueAt, sRGB ? 1 : 0xFFFF)
        }
        return Data(b)
    }

    /// `exif` with IFD0's orientation set to `orientation` (1...8), for a writer whose pixels
    /// are turned (1) or kept as stored (the orientation they still need); unchanged when it
    /// has no orientation entry or is malformed.
    public static func exifSettingOrientation(_ exif: Data, _ orientation: Int) -> Data {
        guard (1...8).contains(orientation) else { return exif }
        var b = [UInt8](exif)
        guard let t = TIFFBlock(b), let first = t.firstIFD, let ifd0 = t.directory(at: first) else { return exif }
        for e in ifd0.entries where e.tag == 0x0112 && e.type == 3 && e.count == 1 {
            t.put16(&b, e.valueAt, UInt16(orientation))
        }
        return Data(b)
    }
}

extension ImageCodecs {
    /// `exif` (a new block when nil) with text entries set: `ifd0` tags in IFD0 and `exifIFD`
    /// tags in the EXIF directory (made when missing). Values are ASCII strings (type 2), but
    /// UserComment (0x9286), which is UNDEFINED with the "ASCII" character-code prefix.
    /// Other entries keep their values; the block is written little-endian.
    public static func exifSettingText(_ exif: Data?, ifd0: [Int: String], exifIFD: [Int: String]) -> Data {
        var tree: [IFDItem] = []
        var little = true
        if let exif, let block = TIFFBlock([UInt8](exif)), let t = block.tree {
            tree = t
            little = block.little
        }
        func item(_ tag: Int, _ text: String) -> IFDItem {
            if tag == 0x9286 {
                let v = Array("ASCII".utf8) + [0, 0, 0] + Array(text.utf8)
                return IFDItem(tag: tag, type: 7, count: v.count, value: v)
            }
            let v = Array(text.utf8) + [0]
            return IFDItem(tag: tag, type: 2, count: v.count, value: v)
        }
        for (tag, text) in ifd0 {
            tree.removeAll { $0.tag == tag }
            tree.append(item(tag, text))
        }
        if !exifIFD.isEmpty {
            var sub = tree.first { $0.tag == 0x8769 }?.sub ?? []
            for (tag, text) in exifIFD {
                sub.removeAll { $0.tag == tag }
                sub.append(item(tag, text))
            }
            tree.removeAll { $0.tag == 0x8769 }
            tree.append(IFDItem(tag: 0x8769, type: 4, count: 1, value: [0, 0, 0, 0], sub: sub))
        }
        return IFDWriter.block(tree, sourceLittle: little)
    }
}
