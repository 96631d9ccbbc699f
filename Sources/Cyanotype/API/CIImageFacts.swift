// What Core Image tells about an image without rendering it: its colour space and whether it
// is known to be opaque.

extension CIImage {
    /// The colour space of the image's source pixels, as Core Image's `colorSpace`: for an
    /// image read from a file or made from a bitmap or `CGImage` (also once cropped or
    /// transformed), the space its pixels are held in (a file's pixels are held in sRGB, or
    /// in extended linear sRGB when its profile is converted; asking decodes a file not yet
    /// decoded). Nil for generated and filtered images, and for unmanaged bitmaps.
    public var colorSpace: CGColorSpace? {
        guard let source = CIImage.sourceNode(node) else { return nil }
        if let bitmap = (source as? any StoredPixels)?.storedBitmap { return bitmap.colorSpace }
        if let file = source as? any FileSource {
            return ((try? file.loadedSource(forOneRender: false)) as? any StoredPixels)?.storedBitmap?.colorSpace
        }
        return nil
    }

    /// Whether every pixel of the extent is known to be opaque (Core Image's `isOpaque`): a
    /// bitmap format without alpha, a file without alpha, an opaque constant colour, and those
    /// cropped or transformed. False when not known (most filters' outputs).
    public var isOpaque: Bool {
        if let hasAlpha = properties[kCGImagePropertyHasAlpha] as? Bool { return !hasAlpha }
        guard let source = CIImage.sourceNode(node) else { return false }
        if let constant = source as? ConstantColorNode { return constant.color.w >= 1 }
        if let bitmap = (source as? any StoredPixels)?.storedBitmap, let layout = bitmap.format.info?.layout {
            return [.rgbx, .l, .r, .rg].contains(layout)
        }
        return false
    }

    /// The source under crops and affine transforms (which keep its pixels' space and
    /// opacity inside the extent), or nil when another node is in the way.
    private static func sourceNode(_ node: RecipeNode) -> RecipeNode? {
        var n = node
        while n is any Crop || n is any Affine {
            guard let next = n.inputs.first else { return nil }
            n = next
        }
        return n.inputs.isEmpty ? n : nil
    }
}
