/**
 * Traffic markers RFC 2697 / 2698 (fronts {@link dev.cellrate.tcm.SrTcm}, {@link dev.cellrate.tcm.TrTcm};
 * decisions {@link dev.cellrate.tcm.SrTcmRules}, {@link dev.cellrate.tcm.TrTcmRules}, {@link
 * dev.cellrate.tcm.TokenTicks}; value {@link dev.cellrate.tcm.Colour}); four words under a seqlock.
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.tcm;
