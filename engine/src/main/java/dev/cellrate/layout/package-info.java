/**
 * Layout descriptors ({@link dev.cellrate.layout.CellLayout}, layer: layout): the padded cell and the seqlock
 * cell, their offsets, sizes and fresh values, named once. Not exported by the module.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.layout;
