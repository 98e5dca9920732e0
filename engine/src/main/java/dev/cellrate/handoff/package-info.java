/**
 * Hand-offs between the engine's packages that must not be part of the API: an exported holder whose fill
 * methods are package-private registers a writer here, and a front of another exported package (an
 * observing front) writes through it. Not exported.
 */
package dev.cellrate.handoff;
