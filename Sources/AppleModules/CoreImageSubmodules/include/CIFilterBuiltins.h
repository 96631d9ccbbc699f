/* Empty on purpose: the typed filter builtins are Swift declarations of Cyanotype, which the
   Swift module CoreImage re-exports. This header only gives `import CoreImage.CIFilterBuiltins`
   a submodule to name. */
