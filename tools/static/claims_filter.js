// The chapter filter of the Claims and Errata pages (tools/claims_pages.py adds this
// script to those two pages only). Each chapter link shows that chapter's section
// alone; "all" shows every chapter again. The link's address (#claims-ch7) is the
// filter, so a shared or reloaded address shows the same chapter, and the browser's
// back button goes back to the previous choice. Any other address (#C7-03, a heading
// of the page's contents) shows every chapter. Without JavaScript the links are plain
// links to the sections.
(() => {
  const links = [...document.querySelectorAll(".alice-chapter-filter a[data-chapter]")];
  const groups = [...document.querySelectorAll("[data-claims-chapter]")];
  if (!links.length || !groups.length) return;

  function show(chapter) {
    for (const group of groups) {
      const section = group.closest("section") || group;
      const hide = chapter !== "all" && group.dataset.claimsChapter !== chapter;
      section.style.display = hide ? "none" : "";
    }
    for (const link of links) {
      link.setAttribute("aria-current", String(link.dataset.chapter === chapter));
    }
  }

  function fromAddress() {
    const link = links.find((a) => a.getAttribute("href") === location.hash);
    show(link ? link.dataset.chapter : "all");
  }

  window.addEventListener("hashchange", fromAddress);
  fromAddress();
})();
