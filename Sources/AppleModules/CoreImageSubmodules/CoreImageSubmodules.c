/* SwiftPM needs one source file in a C target; the target exists for its module map. */
int cyanotype_core_image_submodules_placeholder(void) { return 0; }
