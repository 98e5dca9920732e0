/**
 * Argument checks ({@link dev.cellrate.check.Bounds}): every bad configuration fails at start with a message that
 * names the field and its range. Not exported by the module.
 */
package dev.cellrate.check;
