package sdchaos.nacos.callers;

/**
 * Why a failed call failed, as the caller knows it where the call failed (by the exception's
 * type, never its text): the "class" of a call's line, the harness's history.ErrClass.
 */
final class ErrClass {

    /** The client had no instance to call: its list was empty. */
    static final String NO_INSTANCE = "no-instance";
    /** The client could not read the registry (not connected, no answer). */
    static final String REGISTRY = "registry";
    /** The instance called failed or did not answer. */
    static final String INSTANCE = "instance";
    /** Any other failure. */
    static final String OTHER = "other";

    private ErrClass() {
    }
}
