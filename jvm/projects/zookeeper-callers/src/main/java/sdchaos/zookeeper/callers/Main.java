package sdchaos.zookeeper.callers;

public final class Main {
    public static void main(String[] args) {
    }
}
