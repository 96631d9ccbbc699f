import Foundation

/// Just enough ISO-BMFF parsing to find the canvas sizes of derived images ('grid' and
/// 'iovl') before libheif allocates them: libheif 1.15 sizes a grid's output from the grid
/// descriptor in the item's data, not from its `ispe`, so a 16x12 `ispe` can hide a
/// 60000x60000 grid (the fuzzer found this in a minute). Every read is bounds-checked; on any
/// doubt the parser returns nil and libheif has the last word.
struct HEIFBoxes {
    let b: UnsafeRawBufferPointer

    struct Box { var type: String; var start: Int; var body: Int; var end: Int }

    func be(_ at: Int, _ n: Int) -> Int? {
        guard n >= 0, n <= 8, at >= 0, at + n <= b.count else { return nil }
        var v = 0
        for i in 0..<n { v = v << 8 | Int(b[at + i]) }
        return v
    }

    /// The boxes between `from` and `to`.
    func boxes(_ from: Int, _ to: Int) -> [Box] {
        var out: [Box] = []
        var pos = from
        while pos + 8 <= to, out.count < 4096 {
            guard var size = be(pos, 4) else { break }
            let type = String(decoding: b[(pos + 4)..<(pos + 8)], as: UTF8.self)
            var body = pos + 8
            if size == 1 {
                guard let large = be(pos + 8, 8), large >= 16 else { break }
                size = large
                body = pos + 16
            } else if size == 0 {
                size = to - pos
            }
            guard size >= body - pos, pos + size <= to else { break }
            out.append(Box(type: type, start: pos, body: body, end: pos + size))
            pos += size
        }
        return out
    }

    /// Output width and height of every grid or overlay item (the primary image and any tile
    /// or layer it derives from: a grid's tile can itself be an overlay with its own canvas).
    func derivedCanvases() -> [(type: String, width: Int, height: Int)] {
        guard let meta = boxes(0, b.count).first(where: { $0.type == "meta" }) else { return [] }
        let children = boxes(meta.body + 4, meta.end)  // meta is a full box
        var out: [(String, Int, Int)] = []
        for (id, type) in items(children) where type == "grid" || type == "iovl" {
            guard let data = itemData(id, children) else { continue }
            // grid: version, flags, rows-1, columns-1, width, height; iovl: version, flags,
            // 4 x 16-bit fill values, width, height. Sizes are 32-bit when flags bit 0 is set.
            guard let flags = be(data.lowerBound + 1, 1) else { continue }
            let n = flags & 1 == 1 ? 4 : 2
            let at = data.lowerBound + (type == "grid" ? 4 : 10)
            guard at + 2 * n <= data.upperBound, let w = be(at, n), let h = be(at + n, n) else { continue }
            out.append((type, w, h))
            if out.count >= 256 { break }
        }
        return out
    }

    /// (item ID, item type) of every `infe` (versions 2 and 3).
    func items(_ children: [Box]) -> [(Int, String)] {
        guard let iinf = children.first(where: { $0.type == "iinf" }), let v = be(iinf.body, 1) else { return [] }
        var out: [(Int, String)] = []
        for infe in boxes(iinf.body + 4 + (v == 0 ? 2 : 4), iinf.end) where infe.type == "infe" {
            guard let iv = be(infe.body, 1), iv >= 2 else { continue }
            let idSize = iv == 2 ? 2 : 4
            guard let itemID = be(infe.body + 4, idSize) else { continue }
            let at = infe.body + 4 + idSize + 2
            guard at + 4 <= infe.end else { continue }
            out.append((itemID, String(decoding: b[at..<(at + 4)], as: UTF8.self)))
        }
        return out
    }

    /// The first item whose data (per `iloc`) lies outside the file or its `idat`, as a
    /// message: libheif 1.15 sizes its read buffers from these lengths before reading, so a
    /// 10-byte extent claiming 2.8 GB is an allocation of 2.8 GB.
    func extentOutsideData() -> String? {
        guard let meta = boxes(0, b.count).first(where: { $0.type == "meta" }) else { return nil }
        let children = boxes(meta.body + 4, meta.end)
        let idat = children.first(where: { $0.type == "idat" })
        for item in ilocItems(children) {
            let limit: Int
            switch item.method {
            case 0: limit = b.count
            case 1: limit = idat.map { $0.end - $0.body } ?? 0
            default: continue
            }
            var total = 0
            for (off, len) in item.extents {
                total += len
                let (end, o1) = (item.base + off).addingReportingOverflow(len)
                if o1 || end > limit || total > b.count {
                    return "item \(item.id) claims \(len) bytes at offset \(item.base + off), beyond the \(limit) bytes "
                        + (item.method == 0 ? "of the file" : "of its idat box")
                }
            }
        }
        return nil
    }

    /// One `iloc` entry: construction method (0 file, 1 idat), base offset and extents.
    /// `complete` is false for an entry the box ends in the middle of (its extents so far).
    struct ILocItem {
        var id: Int, method: Int, base: Int
        var declaredExtents: Int
        var extents: [(offset: Int, length: Int)] = []
        var complete = false
    }

    /// The entries of the `iloc` box among `children`, in order, as far as the box can be read
    /// (bounds-checked; at most 65536 items and extents each).
    func ilocItems(_ children: [Box]) -> [ILocItem] {
        guard let iloc = children.first(where: { $0.type == "iloc" }), let v = be(iloc.body, 1), v <= 2,
            let sizes = be(iloc.body + 4, 2)
        else { return [] }
        let offsetSize = sizes >> 12 & 15, lengthSize = sizes >> 8 & 15, baseSize = sizes >> 4 & 15
        let indexSize = v >= 1 ? sizes & 15 : 0
        var pos = iloc.body + 6
        guard let count = be(pos, v < 2 ? 2 : 4) else { return [] }
        pos += v < 2 ? 2 : 4
        var items: [ILocItem] = []
        for _ in 0..<min(count, 65536) {
            guard let itemID = be(pos, v < 2 ? 2 : 4) else { return items }
            pos += v < 2 ? 2 : 4
            var method = 0
            if v >= 1 {
                guard let m = be(pos, 2) else { return items }
                method = m & 15
                pos += 2
            }
            pos += 2  // data reference index
            guard let base = be(pos, baseSize) else { return items }
            pos += baseSize
            guard let extents = be(pos, 2) else { return items }
            pos += 2
            var item = ILocItem(id: itemID, method: method, base: base, declaredExtents: extents)
            for _ in 0..<min(extents, 65536) {
                pos += indexSize
                guard let off = be(pos, offsetSize), let len = be(pos + offsetSize, lengthSize) else {
                    items.append(item)
                    return items
                }
                pos += offsetSize + lengthSize
                item.extents.append((off, len))
            }
            item.complete = true
            items.append(item)
        }
        return items
    }

    /// The byte range of an item stored in one extent, in the file or in `idat`.
    func itemData(_ id: Int, _ children: [Box]) -> Range<Int>? {
        guard let item = ilocItems(children).first(where: { $0.id == id }), item.complete,
            item.declaredExtents == 1, let (off, len) = item.extents.first
        else { return nil }
        var start = item.base + off
        if item.method == 1 {
            guard let idat = children.first(where: { $0.type == "idat" }) else { return nil }
            start += idat.body
            let end = len == 0 ? idat.end : start + len
            return start >= idat.body && end <= idat.end && start <= end ? start..<end : nil
        }
        guard item.method == 0 else { return nil }
        let end = len == 0 ? b.count : start + len
        return start >= 0 && end <= b.count && start <= end ? start..<end : nil
    }
}
