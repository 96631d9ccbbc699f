internal import CyanotypeCodecs

// Pass-through: the one place that decides a render has nothing to compute. A render job
// (`Render.run`) asks it once, after the optimiser and before planning; the job then copies
// (or hands over) the source's stored pixels instead of running tiles.

/// Stored pixels that are already what a render's destination wants over its whole rect.
enum PassThrough {
    /// A bitmap (or a decoded file, possibly still decoding behind its `RowGate`) in the
    /// destination's layout, sample type, colour space and alpha convention.
    case bitmap(BitmapNode)
    /// A 16-bit bitmap whose rows, each sample rounded to 8 bits (`narrowToEightBits`), are
    /// what an 8-bit destination of its layout, colour space and alpha convention wants: the
    /// same values a float conversion of v / 65535 rounds to. Only a streaming encode takes
    /// it as it is (a 16-bit PNG or TIFF written as JPEG); other deliveries render.
    case narrowedBitmap(BitmapNode)
    /// A planar Y'CbCr frame of the destination buffer's format and size.
    case planes(YCbCrSourceNode)
}

/// A JPEG file's Y'CbCr planes as a file source can hand them, undecoded, to a render that
/// writes them unchanged as a JPEG again (`Optimizer.recodedPlanes`): the encoder is given the
/// planes' samples (chroma upsampled as libjpeg does) with no round trip through RGB and no
/// RGBA picture.
struct StoredJPEGPlanes: Sendable {
    /// The EXIF orientation (1...8) the planes are turned upright by as they decode.
    let orientation: Int
    /// How the file source's decoded rows are read (`SourceColor`): made when asked.
    let color: @Sendable () -> SourceColor
    /// Decodes the planes, upright; nil when the file is not 8-bit Y'CbCr in a sampling the
    /// planes hold (grey, CMYK). Throws the file's error (truncated, damaged, changed).
    let decode: @Sendable () throws -> JPEGPlanes?
}

extension Optimizer {
    /// 11. Pass-through: whether the optimised `recipe`, rendered over `rect` into
    /// `destination` (as the caller gave it, before any conversion folded into it), is a
    /// stored source whose pixels the destination takes as they are: a bitmap whose format,
    /// colour space (ignored without colour management) and alpha convention match a bitmap
    /// writer and which covers `rect`, or a planar frame of a planar writer's format and size
    /// (through crops that keep the whole frame). nil when anything must be computed.
    static func passThrough(
        _ recipe: OptimizedRecipe, rect: PixelRect, into destination: any RenderDestination, colorManaged: Bool
    ) -> PassThrough? {
        switch destination {
        case let writer as DestinationWriter:
            guard let bitmap = (recipe.root as? any StoredPixels)?.storedBitmap, bitmap.pixelExtent.contains(rect),
                let info = bitmap.format.info, info.layout == writer.info.layout,
                info.sample == .uint8 || info.sample == .uint16,
                bitmap.premultiplied == writer.premultiplied || info.layout == .rgbx,
                !colorManaged || bitmap.colorSpace == writer.space
            else { return nil }
            if info.sample == writer.info.sample { return .bitmap(bitmap) }
            return info.sample == .uint16 && writer.info.sample == .uint8 && info.layout == .rgba ? .narrowedBitmap(bitmap) : nil
        case let writer as YCbCrWriter:
            var node = recipe.root
            while node.traits.showsInputUnchanged, !(node is any SamplingMark) {
                let input = recipe.resolve(node.inputs[0])
                guard node.pixelExtent == input.pixelExtent else { break }
                node = input
            }
            let dst = writer.buffer
            // An encoded source (read as R'G'B', the optimiser's pass-through) goes with a
            // writer taking R'G'B': the planes mean the same on both sides either way.
            guard let source = node as? YCbCrSourceNode, !source.encoded || writer.encodedInput, source.buffer.format == dst.format,
                source.buffer.width == dst.width, source.buffer.height == dst.height, writer.bounds == source.pixelExtent,
                rect == writer.bounds
            else { return nil }
            return .planes(source)
        default:
            return nil
        }
    }
}

extension Optimizer {
    /// Before the pass, re-encoding a JPEG's planes: whether the recipe `root` (not yet optimised, its
    /// sources not loaded), encoded over `rect` from rows of `writer` by a JPEG encoder, is a
    /// JPEG file that is written unchanged but for its orientation: its whole upright extent,
    /// unfiltered, read in the space the writer writes (ignored without colour management),
    /// never decoded yet. Only turns that reorder rows (orientations 3 to 8, which hold the
    /// whole picture before the first output row either way) take it: upright and mirrored
    /// files stream their rows into the encoder as they decode instead. nil otherwise.
    static func recodedPlanes(_ root: RecipeNode, rect: PixelRect, into writer: DestinationWriter, colorManaged: Bool) -> StoredJPEGPlanes? {
        var node = root
        while node.traits.showsInputUnchanged, !(node is any SamplingMark), let input = node.inputs.first, input.extent == node.extent {
            node = input
        }
        guard let file = node as? any PlanarJPEGSource, let stored = file.storedPlanes, !file.isLoaded,
            !RowOrientation(stored.orientation, width: 1, height: 1).keepsRowOrder,
            node.pixelExtent == rect, writer.info.layout == .rgba, writer.info.sample == .uint8,
            !colorManaged || stored.color().space == writer.space
        else { return nil }
        return stored
    }
}
