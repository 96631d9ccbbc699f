// Parsed LUT files kept by file identity (the engine's `FileCache`), so a `.cube` applied again
// (a filter per image, a server's requests, a batch) is read once, and an edited file is read
// again.

import Foundation

/// How a LUT file was read: what tells two reads of one file apart.
struct LUTReadOptions: Hashable {
    let layout: LUTImageLayout?
    let maximumSize: Int
}

/// Parsed LUT files by path, layout and size limit (see `FileCache`).
typealias LUTFileCache = FileCache<LUTReadOptions, LUT>

extension FileCache where Options == LUTReadOptions, Value == LUT {
    /// The LUT in `url`'s file: kept from an earlier read while the file is unchanged, else
    /// read (`LUT(contentsOf:layout:maximumSize:)`) and kept.
    func lut(contentsOf url: URL, layout: LUTImageLayout?, maximumSize: Int) throws(LUTError) -> LUT {
        try value(of: url, options: LUTReadOptions(layout: layout, maximumSize: maximumSize), size: Self.bytes) { () throws(LUTError) -> LUT in
            try LUT(contentsOf: url, layout: layout, maximumSize: maximumSize)
        }
    }

    /// A LUT's table (and shaper) bytes.
    static func bytes(_ lut: LUT) -> Int {
        lut.table.count * MemoryLayout<SIMD4<Float>>.stride + (lut.shaper?.values.count ?? 0) * MemoryLayout<SIMD3<Float>>.stride
    }

    /// The cache `CILUTFilter`'s file sources share (they read when `outputImage` is built, with
    /// no context at hand): 64 MiB of tables (sixteen 64^3 LUTs).
    static let sharedForFilters = LUTFileCache(budget: 64 << 20)
}

extension CIContext {
    /// Cyanotype: the LUT in a `.cube`, `.3dl` or LUT image file, parsed once per context and
    /// kept while the file is unchanged (same size, modification time, inode and device: an
    /// edited file is read again). The same as `LUT(contentsOf:layout:maximumSize:)`
    /// otherwise. Each context keeps up to 64 MiB of tables; `clearCaches()` drops them.
    public func lut(contentsOf url: URL, layout: LUTImageLayout? = nil, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) -> LUT {
        try lutFiles.lut(contentsOf: url, layout: layout, maximumSize: maximumSize)
    }
}
