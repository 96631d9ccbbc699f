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
        guard let t = TIFFBlock(b), let ifd0 = t.ifd(at: t.firstIFD) else { return nil }
        guard let gpsIndex = ifd0.entries.firstIndex(where: { $0.tag == 0x8825 }) else { return exif }
        let gpsOffset = t.u32(ifd0.entries[gpsIndex].valueAt)
        if let gps = t.ifd(at: Int(gpsOffset)) {
            // Out-of-line values first, then the directory itself.
            for e in gps.entries where e.byteCount > 4 {
                let at = Int(t.u32(e.valueAt))
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
        guard let t = TIFFBlock(b), let ifd0 = t.ifd(at: t.firstIFD) else { return false }
        return ifd0.entries.contains { $0.tag == 0x8825 }
    }

    /// `exif` with the EXIF IFD's PixelXDimension and PixelYDimension (when present) set to
    /// `width` and `height`, for pixels that were resized or cropped; unchanged when it has
    /// neither or is malformed.
    public static func exifSettingPixelDimensions(_ exif: Data, width: Int, height: Int) -> Data {
        var b = [UInt8](exif)
        guard let t = TIFFBlock(b), let ifd0 = t.ifd(at: t.firstIFD),
            let pointer = ifd0.entries.first(where: { $0.tag == 0x8769 }),
            let exifIFD = t.ifd(at: Int(t.u32(pointer.valueAt)))
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

/// A TIFF-structured block: byte order, and directories read with every offset checked.
private struct TIFFBlock {
    let bytes: [UInt8]
    let bigEndian: Bool
    let firstIFD: Int

    struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: Int
        /// Where the value (4 bytes or less) or the offset to it sits.
        let valueAt: Int
        var byteCount: Int {
            let size: Int
            switch type {
            case 1, 2, 6, 7: size = 1
            case 3, 8: size = 2
            case 4, 9, 11, 13: size = 4
            case 5, 10, 12: size = 8
            default: size = 1
            }
            return size.multipliedReportingOverflow(by: count).overflow ? Int.max / 2 : size * count
        }
    }
    struct Directory {
        let start: Int
        /// Just past the next-IFD offset.
        let end: Int
        let entries: [Entry]
    }

    init?(_ b: [UInt8]) {
        guard b.count >= 8 else { return nil }
        if b[0] == 0x49, b[1] == 0x49, b[2] == 42, b[3] == 0 {
            bigEndian = false
        } else if b[0] == 0x4D, b[1] == 0x4D, b[2] == 0, b[3] == 42 {
            bigEndian = true
        } else {
            return nil
        }
        bytes = b
        let first = bigEndian
            ? Int(b[4]) << 24 | Int(b[5]) << 16 | Int(b[6]) << 8 | Int(b[7])
            : Int(b[7]) << 24 | Int(b[6]) << 16 | Int(b[5]) << 8 | Int(b[4])
        firstIFD = first
    }

    func u16(_ at: Int) -> UInt16 {
        guard at >= 0, at + 2 <= bytes.count else { return 0 }
        return bigEndian ? UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) : UInt16(bytes[at + 1]) << 8 | UInt16(bytes[at])
    }
    func u32(_ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= bytes.count else { return 0 }
        let v = (0..<4).map { UInt32(bytes[at + $0]) }
        return bigEndian ? v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3] : v[3] << 24 | v[2] << 16 | v[1] << 8 | v[0]
    }
    func put16(_ b: inout [UInt8], _ at: Int, _ v: UInt16) {
        guard at >= 0, at + 2 <= b.count else { return }
        let hi = UInt8(v >> 8), lo = UInt8(v & 0xFF)
        if bigEndian { b[at] = hi; b[at + 1] = lo } else { b[at] = lo; b[at + 1] = hi }
    }
    func put32(_ b: inout [UInt8], _ at: Int, _ v: UInt32) {
        guard at >= 0, at + 4 <= b.count else { return }
        for i in 0..<4 {
            let byte = UInt8((v >> (8 * UInt32(i))) & 0xFF)
            b[bigEndian ? at + 3 - i : at + i] = byte
        }
    }

    /// The directory at `offset`, or nil when it does not fit in the block.
    func ifd(at offset: Int) -> Directory? {
        guard offset >= 8, offset + 2 <= bytes.count else { return nil }
        let n = Int(u16(offset))
        let end = offset + 2 + 12 * n + 4
        guard n > 0, n < 4096, end <= bytes.count else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(n)
        for i in 0..<n {
            let e = offset + 2 + 12 * i
            entries.append(Entry(tag: u16(e), type: u16(e + 2), count: Int(u32(e + 4)), valueAt: e + 8))
        }
        return Directory(start: offset, end: end, entries: entries)
    }
}
